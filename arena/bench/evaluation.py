"""``arena bench evaluation``: what duplicate play buys, per game and pair of players.

For each game, two pairs: the heuristic policy against the random one, and the mc sample bot
(a process, its time per decision set by ``MC_BUDGET_MS``) against the heuristic policy. Every
deal is seated as ``arena compare`` seats it (a league's tables, rounds and rotations) and
played in every rotation of its table. From the same deals:

- *plain play* (one seating): each rotation on its own is a deal played once; its difference
  is A's mean return per seat minus B's in that deal. The variance is over every rotation of
  every deal.
- *duplicate*: the deal's difference is the mean over its rotations (the set's difference).

Both have the same mean ``mu``; the deals needed to separate the pair at 95% are
``(z * sd / mu)**2`` with ``z`` the normal 97.5% quantile, so their ratio is the ratio of the
variances. The pair differs when the duplicate mean's t interval excludes 0. The goal: where
the pair differs, duplicate needs at most half the deals of plain play. Duplicate plays each
deal once per rotation, so the report gives the deals played (games) as well.

A set in which a seat forfeited (a bot that did not start, a timeout) is left out and another
deal played in its place, and the report says how many and why: a forfeited deal's returns are
the random substitute's, not the bot's play.

Where the goal is missed, the reason is read off the rotations' correlation ``rho`` within a
deal: with ``R`` rotations the ratio is ``(1 + (R - 1) * rho) / R``, which is at most 1/2 only
when the cards that favour one bot in one seating favour the other once the seats turn
(``rho`` low or negative); when the rotations agree, the stronger bot wins whatever the cards,
and rotating seats has little luck to cancel.
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from arena.agents import BotSeat, PolicySeat, SeatSpec
from arena.agents.pool import AgentPool
from arena.bench.errors import BenchError
from arena.bench.protocol import ROOT
from arena.games import Game, GameError, game_ids
from arena.league.compare import set_score
from arena.league.comparing import GameTest, league_game, schedules
from arena.league.forfeits import ForfeitPolicy
from arena.league.schedule import ScheduledMatch
from arena.match.results import DealResult, DuplicateResult, clean_instances
from arena.match.runner import run_duplicate_async
from arena.match.timecontrol import TimeControl

SAMPLE_MC = ROOT / "sample_bots" / "python" / "mc"
"""The mc sample bot of a source checkout."""

MC = "mc"
PAIRS = (("heuristic", "random"), (MC, "heuristic"))
"""The pairs measured in each game, the first named is A."""

DEFAULT_DEALS = 200
"""Deals of the heuristic-random pair per game."""

DEFAULT_MC_DEALS = 30
"""Deals of the mc-heuristic pair per game (mc thinks for its budget at every decision)."""

DEFAULT_MC_BUDGET_MS = 10
"""mc's time per decision (``MC_BUDGET_MS``) in the bench."""

DEFAULT_SEED = 1
"""The deals derive from this seed, so two runs play the same deals."""

GOAL_RATIO = 0.5
"""Duplicate should need at most this share of plain play's deals."""

LEVEL = 0.95

Progress = Callable[[str], None]


@dataclass(frozen=True)
class DealPair:
    """One deal: the difference of each rotation played alone, and their mean."""

    rotations: tuple[float, ...]

    @property
    def duplicate(self) -> float:
        """The deal's difference in duplicate: the mean over its rotations."""
        return sum(self.rotations) / len(self.rotations)


def rotation_difference(table: Sequence[int], deal: DealResult) -> float:
    """A's mean return per seat minus B's in one rotation played alone."""
    sums, counts = [0.0, 0.0], [0, 0]
    for seat, entrant in enumerate(deal.entrants):
        bot = table[entrant]
        sums[bot] += deal.returns[seat]
        counts[bot] += 1
    return sums[0] / counts[0] - sums[1] / counts[1]


def deal_pair(match: ScheduledMatch[int], result: DuplicateResult) -> DealPair:
    """The deal's rotation differences, checked against the set's own score."""
    if result.void:
        problems = "; ".join(p for deal in result.deals for p in deal.problems())
        raise BenchError(f"{match.game}: a deal was void: {problems}")
    pair = DealPair(tuple(rotation_difference(match.seats, deal) for deal in result.deals))
    score = set_score(match.seats, result, policy=ForfeitPolicy.STAND)
    assert score is not None
    scores = score.bot_scores()
    if not math.isclose(pair.duplicate, scores[0] - scores[1], abs_tol=1e-9):
        raise BenchError(f"{match.game}: the rotations do not add up to the set's score")
    return pair


def correlation(deals: Sequence[DealPair]) -> float | None:
    """The correlation of two rotations' differences within a deal (one-way ANOVA intraclass
    correlation over deals); None without spread."""
    rotations = len(deals[0].rotations)
    data = np.array([deal.rotations for deal in deals])
    if rotations < 2 or len(deals) < 2:
        return None
    grand = data.mean()
    between = rotations * ((data.mean(axis=1) - grand) ** 2).sum() / (len(deals) - 1)
    within = ((data - data.mean(axis=1, keepdims=True)) ** 2).sum() / (
        len(deals) * (rotations - 1))
    if between + (rotations - 1) * within == 0:
        return None
    return float((between - within) / (between + (rotations - 1) * within))


def deals_needed(sd: float, mean: float) -> float | None:
    """Deals for a 95% interval of half-width ``|mean|``: ``(z * sd / mean)**2`` (None when
    the mean is 0)."""
    if mean == 0:
        return None
    z = float(stats.norm.ppf(0.5 + LEVEL / 2))
    return float((z * sd / mean) ** 2)


def summarize(game: Game, pair: tuple[str, str], deals: Sequence[DealPair],
              seconds: float) -> dict[str, Any]:
    """The figures of one game and pair."""
    plain = np.array([value for deal in deals for value in deal.rotations])
    duplicate = np.array([deal.duplicate for deal in deals])
    rotations = round(len(plain) / len(duplicate))
    mean = float(duplicate.mean())
    var_plain = float(plain.var(ddof=1)) if plain.size > 1 else 0.0
    var_duplicate = float(duplicate.var(ddof=1)) if duplicate.size > 1 else 0.0
    low = high = None
    if duplicate.size > 1 and var_duplicate > 0:
        low, high = (float(v) for v in stats.t.interval(LEVEL, duplicate.size - 1, loc=mean,
                                                         scale=stats.sem(duplicate)))
    differs = (low is not None and (low > 0 or (high is not None and high < 0))) or (
        var_duplicate == 0 and mean != 0)
    need_plain = deals_needed(math.sqrt(var_plain), mean)
    need_duplicate = deals_needed(math.sqrt(var_duplicate), mean)
    ratio = var_duplicate / var_plain if var_plain > 0 else None
    rho = correlation(deals)
    meets = None if not differs or ratio is None else ratio <= GOAL_RATIO
    note = None
    if differs and ratio is None:
        note = "no spread: every deal gives the same difference, one deal separates the pair"
    elif not differs:
        note = "the pair does not differ at 95% over these deals: no goal"
    return {
        "game": game.id, "players": game.num_players, "a": pair[0], "b": pair[1],
        "deals": len(deals), "rotations": rotations, "mean_difference": mean,
        "ci_low": low, "ci_high": high, "differs": differs,
        "variance_plain": var_plain, "variance_duplicate": var_duplicate,
        "deals_plain": need_plain, "deals_duplicate": need_duplicate,
        "games_plain": need_plain,
        "games_duplicate": None if need_duplicate is None else need_duplicate * rotations,
        "games_ratio": None if ratio is None else ratio * rotations,
        "ratio": ratio, "rotation_correlation": rho, "meets_goal": meets,
        "why": why_missed(rotations, rho, var_plain, mean) if meets is False else note,
        "seconds": round(seconds, 1),
    }


def why_missed(rotations: int, rho: float | None, var_plain: float, mean: float) -> str:
    """Why duplicate did not halve the deals, in a sentence."""
    if rho is None:
        return "no spread within the deals to compare"
    kept = (1 + (rotations - 1) * rho) / rotations
    reason = (f"the {rotations} rotations of a deal agree (correlation {rho:+.2f}), so their "
              f"mean keeps {kept:.0%} of plain play's variance: the cards a seat gets decide "
              "little of which bot does better")
    if var_plain <= mean * mean / 4:
        reason += (f"; plain play already separates the pair in "
                   f"{deals_needed(math.sqrt(var_plain), mean) or 0:.1f} deals")
    return reason


@contextmanager
def mc_budget(budget_ms: int) -> Iterator[None]:
    """``MC_BUDGET_MS`` for the mc processes started meanwhile."""
    old = os.environ.get("MC_BUDGET_MS")
    os.environ["MC_BUDGET_MS"] = str(budget_ms)
    try:
        yield
    finally:
        if old is None:
            del os.environ["MC_BUDGET_MS"]
        else:
            os.environ["MC_BUDGET_MS"] = old


def seat_of(name: str, mc: Path) -> SeatSpec:
    """The seat spec of a player of the bench: a policy, or the mc bot's process."""
    return BotSeat.from_path(mc) if name == MC else PolicySeat(name)


MAX_SPOILED_SHARE = 0.25
"""Sets with a forfeit may be left out up to this share of the deals asked for (at least 3);
past that the pair is reported as not measured in that game."""


class PairNotMeasured(BenchError):
    """A pair whose sets kept forfeiting in one game: reported, and the bench goes on."""


def play_pair(pool: AgentPool, game: Game, pair: tuple[str, str], deals: int, seed: int,
              mc: Path, progress: Progress) -> tuple[list[DealPair], int, Counter[str]]:
    """Play ``deals`` deals of one pair in every rotation; each deal's differences, and the
    sets left out because a seat forfeited with the forfeits' reasons (a bench measures play: a
    forfeited deal's returns are the random substitute's)."""
    specs = (seat_of(pair[0], mc), seat_of(pair[1], mc))
    control = TimeControl()
    result_deals: list[DealPair] = []
    spoiled = 0
    reasons: Counter[str] = Counter()
    allowed = max(3, math.ceil(MAX_SPOILED_SHARE * deals))
    for _, match in schedules([GameTest(game, 0.0, 1.0)], 2 * deals + allowed, seed):
        if len(result_deals) == deals:
            break
        loan = pool.lend([specs[bot] for bot in match.seats], match.seed)
        try:
            result = pool.run(run_duplicate_async(game, match.seed, loan.seats, control,
                                                  rotations=match.rotations))
        except BaseException:
            pool.give_back(loan, None)
            raise
        pool.give_back(loan, clean_instances(result))
        lost = [name for deal in result.deals if not deal.void
                for name, forfeited in zip(deal.reason_names, deal.forfeited, strict=True)
                if forfeited]
        if lost:
            spoiled += 1
            reasons.update(lost)
            if spoiled > allowed:
                raise PairNotMeasured(f"{spoiled} sets with a forfeit ({reason_text(reasons)}) "
                                      f"before {deals} clean ones")
            continue
        result_deals.append(deal_pair(match, result))
        progress(f"{game.id}: {pair[0]} against {pair[1]}, deal {len(result_deals)} of {deals}")
    return result_deals, spoiled, reasons


def reason_text(reasons: Counter[str]) -> str:
    """``INIT_ERROR 3, TIMEOUT 1``: forfeits by reason code."""
    return ", ".join(f"{name} {count}" for name, count in sorted(reasons.items()))


def plays_game(name: str, game: Game, mc: Path) -> bool:
    """True when the player can play the game (a policy the game has, or the mc bot)."""
    try:
        seat_of(name, mc).check(game)
    except (GameError, ValueError):
        return False
    return True


def run_evaluation_bench(game_id: str | None = None, deals: int = DEFAULT_DEALS,
                         mc_deals: int = DEFAULT_MC_DEALS,
                         mc_budget_ms: int = DEFAULT_MC_BUDGET_MS, seed: int = DEFAULT_SEED,
                         mc: Path = SAMPLE_MC, progress: Progress | None = None
                         ) -> dict[str, Any]:
    """Measure every game (or one) and pair; the JSON-ready report."""
    if deals < 2 or mc_deals < 0 or (0 < mc_deals < 2):
        raise BenchError(f"deals must be at least 2 (mc deals 0 to skip mc), got {deals} and "
                         f"{mc_deals}")
    games = [league_game(game_id)] if game_id else [league_game(g) for g in game_ids()]
    show = progress or (lambda text: None)
    rows = []
    skipped = []
    pool = AgentPool()
    start = time.perf_counter()
    try:
        with mc_budget(mc_budget_ms):
            for game in games:
                for pair, count in zip(PAIRS, (deals, mc_deals), strict=True):
                    if count == 0:
                        continue
                    if not all(plays_game(name, game, mc) for name in pair):
                        skipped.append({"game": game.id, "a": pair[0], "b": pair[1],
                                        "why": "a player does not play the game"})
                        continue
                    begun = time.perf_counter()
                    try:
                        played, spoiled, reasons = play_pair(pool, game, pair, count, seed, mc,
                                                             show)
                    except PairNotMeasured as error:
                        skipped.append({"game": game.id, "a": pair[0], "b": pair[1],
                                        "why": str(error)})
                        continue
                    row = summarize(game, pair, played, time.perf_counter() - begun)
                    row["left_out"] = spoiled
                    row["forfeits"] = dict(sorted(reasons.items()))
                    rows.append(row)
    finally:
        pool.close()
    missed = [row for row in rows if row["meets_goal"] is False]
    return {"seed": seed, "deals": deals, "mc_deals": mc_deals, "mc_budget_ms": mc_budget_ms,
            "level": LEVEL, "goal_ratio": GOAL_RATIO, "rows": rows, "skipped": skipped,
            "missed": [{"game": row["game"], "a": row["a"], "b": row["b"], "why": row["why"]}
                       for row in missed],
            "seconds": round(time.perf_counter() - start, 1)}
