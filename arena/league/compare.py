"""Pairwise comparisons from duplicate sets, with confidence intervals, and decision times.

The unit is the duplicate set: one deal played once per rotation. A bot's score in a set is
its mean return per deal, averaged over the rotations (and over its copies when it fills
several seats). For two bots at the same table the set gives one difference of scores; over
the sets the pair shared:

- mean difference with a 95% Student t interval and the two-sided p-value of the one-sample
  t test of a zero mean (``scipy.stats.ttest_1samp``);
- win rate of the first bot: sets where its score is higher, a tie (equal to 9 decimals)
  counting half, with a 95% Wilson score interval
  (``statsmodels.stats.proportion.proportion_confint``);
- ``significant`` when the p-value, adjusted for the family of comparisons it is made in
  (Holm's method by default, ``statsmodels.stats.multitest.multipletests``), is below 0.05.

No interval and no test come from fewer than ``MIN_SETS`` sets, nor from differences that
never vary (equal to 9 decimals: a t interval of zero width, a p-value of 0): such a pair has
``not_enough_data`` set to the reason, and is never significant.

A bot's win rate in a game pools its sets: in each set, the share of the other bots at the
table it outscored (ties half), summed over sets as successes out of the number of sets.

Forfeits (``arena.league.forfeits``): under a league's ``loss`` policy a bot's score uses the
worst return the game allows for each deal it (or its side) forfeited, and a bot that lost a
deal of the set by a forfeit loses the set to every bot that lost none, whatever the scores
(two such bots compare by score). Under ``stand`` the returns count as played.

Decision times come from the records' ``decision_us`` (a forfeited seat's substitute moves,
recorded as null, are left out); the seat of each decision is found by replaying the record.
Percentiles interpolate linearly between the order statistics (``numpy.quantile``).

SciPy and statsmodels are imported by the functions that use them, when first called: they take
seconds to import (statsmodels brings pandas), and every ``arena`` command imports this module.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import numpy as np

from arena.games import load_game
from arena.league.forfeits import DEFAULT_POLICY, ForfeitPolicy, entrant_scores
from arena.match.record import MatchRecord, apply_recorded
from arena.match.results import DuplicateResult

BotId = TypeVar("BotId", bound=Hashable)

CONFIDENCE = 0.95
"""The level of every interval."""

ALPHA = 1 - CONFIDENCE
"""The level of every test: significant when the adjusted p-value is below it."""

MIN_SETS = 5
"""The fewest sets an interval or a test is made from."""

TIE_DECIMALS = 9
"""Scores equal to this many decimals tie, and differences equal to it do not vary."""

CORRECTIONS = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "Benjamini-Hochberg",
               "none": "no correction"}
"""The multiple-comparison corrections a family of pair tests may take, with their names."""

DEFAULT_CORRECTION = "holm"
"""The correction of a report's pair tests."""


@dataclass(frozen=True)
class SetScore(Generic[BotId]):
    """One duplicate set as comparisons see it: the bot and mean return of each entrant."""

    game: str
    bots: tuple[BotId, ...]
    means: tuple[float, ...]
    """Each entrant's mean return per deal over the rotations."""
    lost: tuple[bool, ...] = ()
    """Each entrant: True when it lost a deal of the set by a forfeit (``loss`` policy)."""

    def bot_scores(self) -> dict[BotId, float]:
        """Each bot's score: the mean of its entrants' means."""
        sums: dict[BotId, list[float]] = {}
        for bot, mean in zip(self.bots, self.means, strict=True):
            sums.setdefault(bot, []).append(mean)
        return {bot: sum(values) / len(values) for bot, values in sums.items()}

    def versus(self, bot: BotId, other: BotId) -> float:
        """1 when ``bot`` beat ``other`` in the set, 0.5 for a tie, 0 for a loss: a forfeit
        loses to no forfeit, else the scores decide (equal to 9 decimals tie)."""
        lost = {b for b, flag in zip(self.bots, self.lost, strict=False) if flag}
        if (bot in lost) != (other in lost):
            return 0.0 if bot in lost else 1.0
        scores = self.bot_scores()
        return _share(scores[bot] - scores[other])


def set_score(table: Sequence[BotId], result: DuplicateResult, game: str | None = None,
              policy: ForfeitPolicy = DEFAULT_POLICY) -> SetScore[BotId] | None:
    """The score of a played set (``table[e]``: the bot of entrant ``e``); None when void.

    ``game`` names the comparison's game (the game id by default; a league playing one game
    at several seat counts gives each its own name). ``policy`` scores the forfeits.
    """
    if result.void:
        return None
    if policy is ForfeitPolicy.STAND or all(not entrant.forfeits for entrant in result.entrants):
        means = tuple(entrant.mean for entrant in result.entrants)
        return SetScore(game or result.game, tuple(table), means)
    rules = load_game(result.game, result.players, result.params)
    totals, lost = entrant_scores(rules, result, policy)
    deals = [max(len(entrant.returns), 1) for entrant in result.entrants]
    return SetScore(game or result.game, tuple(table),
                    tuple(total / count for total, count in zip(totals, deals, strict=True)),
                    tuple(count > 0 for count in lost))


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
class MeanTest:
    """A mean's t interval and the p-value of a zero mean, or the reason there are none."""

    interval: Interval | None
    p_value: float | None
    not_enough_data: str
    """Empty when the interval and the test were made; else why not."""


def short_of_data(values: Sequence[float]) -> str:
    """Why ``values`` support no interval or test (``""`` when they do)."""
    if len(values) < MIN_SETS:
        return f"fewer than {MIN_SETS} sets"
    if len({round(value, TIE_DECIMALS) for value in values}) == 1:
        return "no variance"
    return ""


def mean_test(values: Sequence[float], confidence: float = CONFIDENCE) -> MeanTest:
    """The Student t interval of the mean of ``values`` and the two-sided p-value of a zero
    mean (``scipy.stats.ttest_1samp``), unless the values are too few or never vary."""
    reason = short_of_data(values)
    if reason:
        return MeanTest(None, None, reason)
    from scipy import stats

    result = stats.ttest_1samp(np.asarray(values, dtype=float), 0.0)
    bounds = result.confidence_interval(confidence_level=confidence)
    return MeanTest(Interval(float(bounds.low), float(bounds.high)), float(result.pvalue), "")


def t_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval | None:
    """The Student t interval of the mean; None with too few values or none that vary."""
    return mean_test(values, confidence).interval


def wilson_interval(successes: float, trials: int,
                    confidence: float = CONFIDENCE) -> Interval | None:
    """The Wilson score interval of a proportion (``successes`` may count ties as halves);
    None with fewer than ``MIN_SETS`` trials."""
    if trials < MIN_SETS:
        return None
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, trials, alpha=1 - confidence, method="wilson")
    return Interval(max(0.0, float(low)), min(1.0, float(high)))


@dataclass(frozen=True)
class PairComparison(Generic[BotId]):
    """Bot against other bot in one game, over the sets they shared."""

    game: str
    bot: BotId
    other: BotId
    sets: int
    mean_difference: float
    difference_ci: Interval | None
    """None when there is not enough data."""
    wins: int
    ties: int
    losses: int
    win_ci: Interval | None
    """None with fewer than ``MIN_SETS`` sets."""
    p_value: float | None = None
    """The t test's two-sided p-value of a zero mean difference; None without enough data."""
    adjusted_p: float | None = None
    """``p_value`` adjusted for the family of comparisons (``correction``)."""
    correction: str = "none"
    """The key in ``CORRECTIONS`` of the adjustment made."""
    not_enough_data: str = ""
    """Empty when the pair was tested; else why not (too few sets, no variance)."""

    @property
    def win_rate(self) -> float:
        """Share of the sets the bot outscored the other, a tie counting half."""
        return (self.wins + self.ties / 2) / self.sets if self.sets else 0.0

    @property
    def tested(self) -> bool:
        """True when there was enough data for an interval and a test."""
        return self.p_value is not None

    @property
    def significant(self) -> bool:
        """True when the adjusted p-value is below ``ALPHA``."""
        return self.adjusted_p is not None and self.adjusted_p < ALPHA

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"game": self.game, "bot": self.bot, "other": self.other, "sets": self.sets,
                "mean_difference": self.mean_difference,
                "difference_ci": self.difference_ci.to_list() if self.difference_ci else None,
                "p_value": self.p_value, "adjusted_p": self.adjusted_p,
                "correction": self.correction,
                "significant": self.significant,
                "not_enough_data": self.not_enough_data or None,
                "wins": self.wins, "ties": self.ties,
                "losses": self.losses, "win_rate": self.win_rate,
                "win_ci": self.win_ci.to_list() if self.win_ci else None}


@dataclass(frozen=True)
class BotSummary(Generic[BotId]):
    """A bot in one game: its sets, mean score with a t interval, and pooled win rate."""

    game: str
    bot: BotId
    sets: int
    mean_return: float
    return_ci: Interval | None
    win_rate: float
    win_ci: Interval | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"game": self.game, "bot": self.bot, "sets": self.sets,
                "mean_return": self.mean_return,
                "return_ci": self.return_ci.to_list() if self.return_ci else None,
                "win_rate": self.win_rate,
                "win_ci": self.win_ci.to_list() if self.win_ci else None}


def compare_pairs(scores: Iterable[SetScore[BotId]], correction: str = DEFAULT_CORRECTION
                  ) -> dict[tuple[str, BotId, BotId], PairComparison[BotId]]:
    """Every ordered pair of bots that shared a set, per game: ``(game, bot, other)``; the
    tests adjusted by ``correction`` over the family of every unordered pair returned."""
    differences: dict[tuple[str, BotId, BotId], list[float]] = {}
    results: dict[tuple[str, BotId, BotId], list[float]] = {}
    for score in scores:
        by_bot = score.bot_scores()
        for bot, value in by_bot.items():
            for other, other_value in by_bot.items():
                if other != bot:
                    differences.setdefault((score.game, bot, other), []).append(
                        value - other_value)
                    results.setdefault((score.game, bot, other), []).append(
                        score.versus(bot, other))
    pairs = {key: pair_comparison(*key, values, results[key])
             for key, values in differences.items()}
    return correct(pairs, correction)


def pair_comparison(game: str, bot: BotId, other: BotId, differences: Sequence[float],
                    results: Sequence[float] | None = None) -> PairComparison[BotId]:
    """The comparison from the per-set score differences of ``bot`` minus ``other`` (and the
    per-set results, 1 a win, 0.5 a tie, 0 a loss, when forfeits decided some); its p-value
    not yet adjusted (a family of one)."""
    shares = list(results) if results is not None else [_share(d) for d in differences]
    wins = sum(share == 1.0 for share in shares)
    ties = sum(share == 0.5 for share in shares)
    n = len(differences)
    test = mean_test(differences)
    return PairComparison(game=game, bot=bot, other=other, sets=n,
                          mean_difference=sum(differences) / n if n else 0.0,
                          difference_ci=test.interval, wins=wins, ties=ties,
                          losses=n - wins - ties, win_ci=wilson_interval(wins + ties / 2, n),
                          p_value=test.p_value, adjusted_p=test.p_value,
                          not_enough_data=test.not_enough_data)


def check_correction(correction: str) -> str:
    """``correction`` if it is a known one; else a ``ValueError`` naming the known ones."""
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown multiple-comparison correction {correction!r}: "
                         f"use one of {', '.join(CORRECTIONS)}")
    return correction


def correct(pairs: Mapping[Any, PairComparison[BotId]], correction: str = DEFAULT_CORRECTION
            ) -> dict[Any, PairComparison[BotId]]:
    """The pairs with their p-values adjusted over one family: each unordered pair of a game
    counts once (both of its orders get the same adjusted p-value); untested pairs are left
    out of the family."""
    check_correction(correction)
    family: dict[tuple[str, frozenset[BotId]], float] = {}
    for pair in pairs.values():
        if pair.p_value is not None:
            family.setdefault((pair.game, frozenset((pair.bot, pair.other))), pair.p_value)
    keys = list(family)
    adjusted = dict(zip(keys, adjust_p_values([family[key] for key in keys], correction),
                        strict=True))
    return {key: replace(pair, correction=correction,
                         adjusted_p=adjusted.get((pair.game, frozenset((pair.bot, pair.other)))))
            for key, pair in pairs.items()}


def adjust_p_values(p_values: Sequence[float], correction: str = DEFAULT_CORRECTION
                    ) -> list[float]:
    """p-values adjusted for their number (``multipletests``; ``none`` keeps them)."""
    check_correction(correction)
    if not p_values or correction == "none":
        return [float(p) for p in p_values]
    from statsmodels.stats.multitest import multipletests

    _, adjusted, _, _ = multipletests(np.asarray(p_values, dtype=float), alpha=ALPHA,
                                      method=correction)
    return [float(p) for p in adjusted]


def family_size(pairs: Iterable[PairComparison[Any]]) -> int:
    """How many tests a family of pairs holds (each tested unordered pair once)."""
    return len({(pair.game, frozenset((pair.bot, pair.other))) for pair in pairs
                if pair.tested})


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
            others = [b for b in by_bot if b != bot]
            values.setdefault((score.game, bot), []).append(value)
            if others:
                share = sum(score.versus(bot, b) for b in others) / len(others)
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
    rounded = round(difference, TIE_DECIMALS)
    return 1.0 if rounded > 0 else 0.5 if rounded == 0 else 0.0


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
    """The value at ``fraction`` (0..1) of values, interpolating linearly (``numpy.quantile``)."""
    if not ordered:
        raise ValueError("percentile of no values")
    return float(np.quantile(np.asarray(ordered, dtype=float), fraction))


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
