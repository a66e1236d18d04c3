"""Pairwise comparisons from duplicate sets, with confidence intervals, and decision times.

The unit is the duplicate set: one deal played once per rotation. A bot's score in a set is
its mean return per deal, averaged over the rotations (and over its copies when it fills
several seats). For two bots at the same table the set gives one difference of scores; over
the sets the pair shared:

- mean difference with a 95% Student t interval (n - 1 degrees of freedom; none with a
  single set), ``significant`` when the interval excludes 0;
- win rate of the first bot: sets where its score is higher, a tie (equal to 9 decimals)
  counting half, with a 95% Wilson score interval.

A bot's win rate in a game pools its sets: in each set, the share of the other bots at the
table it outscored (ties half), summed over sets as successes out of the number of sets.

Decision times come from the records' ``decision_us`` (a forfeited seat's substitute moves,
recorded as null, are left out); the seat of each decision is found by replaying the record.
Percentiles interpolate linearly between the order statistics.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from statistics import NormalDist
from typing import Any, Generic, TypeVar

from arena.match.record import MatchRecord, apply_recorded
from arena.match.results import DuplicateResult

BotId = TypeVar("BotId", bound=Hashable)

CONFIDENCE = 0.95
"""The level of every interval."""


@dataclass(frozen=True)
class SetScore(Generic[BotId]):
    """One duplicate set as comparisons see it: the bot and mean return of each entrant."""

    game: str
    bots: tuple[BotId, ...]
    means: tuple[float, ...]
    """Each entrant's mean return per deal over the rotations."""

    def bot_scores(self) -> dict[BotId, float]:
        """Each bot's score: the mean of its entrants' means."""
        sums: dict[BotId, list[float]] = {}
        for bot, mean in zip(self.bots, self.means, strict=True):
            sums.setdefault(bot, []).append(mean)
        return {bot: sum(values) / len(values) for bot, values in sums.items()}


def set_score(table: Sequence[BotId], result: DuplicateResult,
              game: str | None = None) -> SetScore[BotId] | None:
    """The score of a played set (``table[e]``: the bot of entrant ``e``); None when void.

    ``game`` names the comparison's game (the game id by default; a league playing one game
    at several seat counts gives each its own name).
    """
    if result.void:
        return None
    means = tuple(entrant.mean for entrant in result.entrants)
    return SetScore(game or result.game, tuple(table), means)


@dataclass(frozen=True)
class Interval:
    """A confidence interval."""

    low: float
    high: float

    def excludes_zero(self) -> bool:
        """True when 0 lies outside the interval."""
        return self.low > 0 or self.high < 0

    def to_list(self) -> list[float]:
        """``[low, high]``."""
        return [self.low, self.high]


@dataclass(frozen=True)
class PairComparison(Generic[BotId]):
    """Bot against other bot in one game, over the sets they shared."""

    game: str
    bot: BotId
    other: BotId
    sets: int
    mean_difference: float
    difference_ci: Interval | None
    """None with fewer than two sets."""
    wins: int
    ties: int
    losses: int
    win_ci: Interval

    @property
    def win_rate(self) -> float:
        """Share of the sets the bot outscored the other, a tie counting half."""
        return (self.wins + self.ties / 2) / self.sets if self.sets else 0.0

    @property
    def significant(self) -> bool:
        """True when the difference's 95% interval excludes 0."""
        return self.difference_ci is not None and self.difference_ci.excludes_zero()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"game": self.game, "bot": self.bot, "other": self.other, "sets": self.sets,
                "mean_difference": self.mean_difference,
                "difference_ci": self.difference_ci.to_list() if self.difference_ci else None,
                "significant": self.significant, "wins": self.wins, "ties": self.ties,
                "losses": self.losses, "win_rate": self.win_rate,
                "win_ci": self.win_ci.to_list()}


@dataclass(frozen=True)
class BotSummary(Generic[BotId]):
    """A bot in one game: its sets, mean score with a t interval, and pooled win rate."""

    game: str
    bot: BotId
    sets: int
    mean_return: float
    return_ci: Interval | None
    win_rate: float
    win_ci: Interval

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"game": self.game, "bot": self.bot, "sets": self.sets,
                "mean_return": self.mean_return,
                "return_ci": self.return_ci.to_list() if self.return_ci else None,
                "win_rate": self.win_rate, "win_ci": self.win_ci.to_list()}


def compare_pairs(scores: Iterable[SetScore[BotId]]
                  ) -> dict[tuple[str, BotId, BotId], PairComparison[BotId]]:
    """Every ordered pair of bots that shared a set, per game: ``(game, bot, other)``."""
    differences: dict[tuple[str, BotId, BotId], list[float]] = {}
    for score in scores:
        by_bot = score.bot_scores()
        for bot, value in by_bot.items():
            for other, other_value in by_bot.items():
                if other != bot:
                    differences.setdefault((score.game, bot, other), []).append(
                        value - other_value)
    return {key: pair_comparison(*key, values) for key, values in differences.items()}


def pair_comparison(game: str, bot: BotId, other: BotId,
                    differences: Sequence[float]) -> PairComparison[BotId]:
    """The comparison from the per-set score differences of ``bot`` minus ``other``."""
    rounded = [round(d, 9) for d in differences]
    wins = sum(d > 0 for d in rounded)
    ties = sum(d == 0 for d in rounded)
    n = len(differences)
    return PairComparison(game=game, bot=bot, other=other, sets=n,
                          mean_difference=sum(differences) / n if n else 0.0,
                          difference_ci=t_interval(differences), wins=wins, ties=ties,
                          losses=n - wins - ties, win_ci=wilson_interval(wins + ties / 2, n))


def head_to_head(comparisons: Mapping[tuple[str, BotId, BotId], PairComparison[BotId]],
                 game: str, bots: Sequence[BotId]
                 ) -> list[list[PairComparison[BotId] | None]]:
    """The matrix of one game: row bot against column bot (None on the diagonal and for pairs
    that never met)."""
    return [[comparisons.get((game, bot, other)) if other != bot else None for other in bots]
            for bot in bots]


def bot_summaries(scores: Iterable[SetScore[BotId]]
                  ) -> dict[tuple[str, BotId], BotSummary[BotId]]:
    """Each bot's summary per game: ``(game, bot)``."""
    values: dict[tuple[str, BotId], list[float]] = {}
    shares: dict[tuple[str, BotId], list[float]] = {}
    for score in scores:
        by_bot = score.bot_scores()
        for bot, value in by_bot.items():
            others = [v for b, v in by_bot.items() if b != bot]
            values.setdefault((score.game, bot), []).append(value)
            if others:
                share = sum(_share(value - v) for v in others) / len(others)
                shares.setdefault((score.game, bot), []).append(share)
    result = {}
    for (game, bot), numbers in values.items():
        won = shares.get((game, bot), [])
        result[game, bot] = BotSummary(
            game=game, bot=bot, sets=len(numbers), mean_return=sum(numbers) / len(numbers),
            return_ci=t_interval(numbers), win_rate=sum(won) / len(won) if won else 0.0,
            win_ci=wilson_interval(sum(won), len(won)))
    return result


def _share(difference: float) -> float:
    """1 for a win, 0.5 for a tie (equal to 9 decimals), 0 for a loss."""
    rounded = round(difference, 9)
    return 1.0 if rounded > 0 else 0.5 if rounded == 0 else 0.0


def t_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval | None:
    """The Student t interval of the mean; None with fewer than two values."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(0.5 + confidence / 2, n - 1) * math.sqrt(variance / n)
    return Interval(mean - half, mean + half)


def wilson_interval(successes: float, trials: int, confidence: float = CONFIDENCE) -> Interval:
    """The Wilson score interval of a proportion (``[0, 1]`` without trials)."""
    if trials <= 0:
        return Interval(0.0, 1.0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


@cache
def t_quantile(probability: float, df: int) -> float:
    """The quantile of Student's t distribution (``0.5 < probability < 1``), by bisection."""
    if not 0.5 <= probability < 1 or df < 1:
        raise ValueError(f"t_quantile needs 0.5 <= p < 1 and df >= 1, got {probability}, {df}")
    low, high = 0.0, 1.0
    while t_cdf(high, df) < probability:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if t_cdf(middle, df) < probability:
            low = middle
        else:
            high = middle
        if high - low < 1e-13 * max(1.0, high):
            break
    return (low + high) / 2


def t_cdf(t: float, df: int) -> float:
    """The distribution function of Student's t."""
    tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2, 0.5)
    return 1 - tail if t >= 0 else tail


def incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (continued fraction, Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - incomplete_beta(1 - x, b, a)
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    return math.exp(log_front) * _beta_fraction(x, a, b) / a


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of the incomplete beta function."""
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return result


@dataclass(frozen=True)
class TimeStats(Generic[BotId]):
    """A bot's decision times in microseconds."""

    bot: BotId
    decisions: int
    p50_us: float
    p95_us: float
    max_us: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"bot": self.bot, "decisions": self.decisions, "p50_us": self.p50_us,
                "p95_us": self.p95_us, "max_us": self.max_us}


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """The value at ``fraction`` (0..1) of sorted values, interpolating linearly."""
    if not ordered:
        raise ValueError("percentile of no values")
    position = fraction * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def decision_seats(record: MatchRecord) -> list[int]:
    """The seat that made each recorded decision, found by replaying the record."""
    state = record.make_game().new_initial_state(record.seed)
    seats = []
    total = len(record.actions)
    for index, action in enumerate(record.actions):
        seats.append(state.current_player())
        apply_recorded(state, index, action, total)
    return seats


def bot_decision_times(deals: Iterable[tuple[Sequence[BotId], MatchRecord]]
                       ) -> dict[BotId, list[int]]:
    """Every timed decision of each bot, from (bot at each seat, record) pairs."""
    times: dict[BotId, list[int]] = {}
    for seat_bots, record in deals:
        if record.conduct is None or not record.conduct.decision_us:
            continue
        for seat, micros in zip(decision_seats(record), record.conduct.decision_us,
                                strict=True):
            if micros is not None:
                times.setdefault(seat_bots[seat], []).append(micros)
    return times


def result_deals(table: Sequence[BotId], result: DuplicateResult
                 ) -> list[tuple[tuple[BotId, ...], MatchRecord]]:
    """The (bot at each seat, record) pairs of a set's deals that count."""
    return [(tuple(table[e] for e in deal.entrants), deal.record)
            for deal in result.deals if deal.record is not None]


def time_stats(times: Mapping[BotId, Sequence[int]]) -> dict[BotId, TimeStats[BotId]]:
    """p50, p95 and max per bot (bots without a timed decision are left out)."""
    result = {}
    for bot, values in times.items():
        if values:
            ordered = sorted(float(v) for v in values)
            result[bot] = TimeStats(bot, len(ordered), percentile(ordered, 0.5),
                                    percentile(ordered, 0.95), ordered[-1])
    return result
