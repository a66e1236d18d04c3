"""``arena bench mc``: the mc sample bot against the heuristic policy over duplicate deals.

The bot runs as a real process (started once, over a Unix socket); the heuristic policy plays
in the arena's process. Deal ``i`` (seed ``i``) is played twice, the seats swapped, so card
luck and seat order cancel out; the deal's difference is the bot's returns minus the
heuristic's, summed over both orders. The report gives the mean difference per deal with its
standard error and a 95% confidence interval (Student's t), wins, ties and losses by deal,
and the time of the bot's decisions as the runner recorded them.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.agents import PolicySeat
from arena.bench.errors import BenchError
from arena.bench.launched import launched_bots
from arena.bench.protocol import (
    ROOT,
    STARTUP_S,
    Progress,
    load_bot,
    temp_root,
)
from arena.bench.stats import mean_interval, percentile
from arena.bots import BotManifest
from arena.games import Game, load_game
from arena.match.record import MatchRecord
from arena.match.results import DuplicateResult
from arena.match.runner import run_duplicate_async

GAME = "briscola"
PLAYERS = 2
OPPONENT = "heuristic"
LEVEL = 0.95
DEFAULT_DEALS = 30
"""Duplicate deals of a default run (each played in both seat orders)."""

SAMPLE_MC = ROOT / "sample_bots" / "python" / "mc"
"""The mc sample bot of a source checkout."""

BOT = 0
"""The bot's entrant index (the heuristic is entrant 1)."""


def decision_seats(game: Game, record: MatchRecord) -> list[int]:
    """The seat that made each decision of a record (by re-playing its actions)."""
    state = game.new_initial_state(record.seed)
    seats = []
    for action in record.actions:
        seats.append(state.current_player())
        state.apply_action(action)
    return seats


def bot_times(game: Game, result: DuplicateResult) -> list[int]:
    """The recorded times (µs) of the bot's decisions in a duplicate set."""
    times = []
    for deal in result.deals:
        record = deal.record
        if record is None or record.conduct is None:
            continue
        seat = deal.entrants.index(BOT)
        times += [us for who, us in zip(decision_seats(game, record), record.conduct.decision_us,
                                        strict=True) if who == seat and us is not None]
    return times


async def _play(game: Game, manifest: BotManifest, deals: int,
                progress: Progress) -> list[DuplicateResult]:
    """Play the duplicate deals with one bot process; every set's result."""
    results = []
    with temp_root() as root:
        progress("starting the bot")
        async with launched_bots(manifest, root, 1, STARTUP_S, rotations=PLAYERS) as (bot,):
            for seed in range(deals):
                result = await run_duplicate_async(game, seed, [bot, PolicySeat(OPPONENT)])
                if result.void:
                    problems = "; ".join(p for deal in result.deals for p in deal.problems())
                    raise BenchError(f"deal {seed} was void: {problems}")
                results.append(result)
                total = sum(_difference(item) for item in results)
                progress(f"deal {seed + 1} of {deals}, mean difference so far "
                         f"{total / len(results):+.2f}")
    return results


def _difference(result: DuplicateResult) -> float:
    """The bot's returns minus the heuristic's, summed over the set's deals."""
    return result.entrants[BOT].total - result.entrants[1 - BOT].total


def _ms(values: Sequence[int]) -> dict[str, float]:
    """Mean, p50, p99 and max of some times in µs, as milliseconds."""
    if not values:
        return {"mean": 0.0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    return {"mean": round(sum(values) / len(values) / 1000, 2),
            "p50": round(percentile(values, 50) / 1000, 2),
            "p99": round(percentile(values, 99) / 1000, 2),
            "max": round(max(values) / 1000, 2)}


def run_mc_bench(deals: int = DEFAULT_DEALS, bot: Path = SAMPLE_MC,
                 progress: Progress | None = None) -> dict[str, Any]:
    """Play the duplicate deals and summarize them; the JSON-ready report."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    game = load_game(GAME, PLAYERS)
    manifest = load_bot(bot, game, SAMPLE_MC)
    start = time.perf_counter()
    results = asyncio.run(_play(game, manifest, deals, progress or (lambda text: None)))
    seconds = time.perf_counter() - start
    differences = [_difference(result) for result in results]
    interval = mean_interval(differences, LEVEL)
    times = [us for result in results for us in bot_times(game, result)]
    faults = Counter(str(fault.kind)
                     for result in results for deal in result.deals for fault in deal.faults
                     if deal.entrants[fault.seat] == BOT)
    forfeits = sum(result.entrants[BOT].forfeits for result in results)
    return {
        "game": game.id,
        "players": game.num_players,
        "bot": {"name": manifest.name, "version": manifest.version, "path": manifest.source},
        "opponent": OPPONENT,
        "deals": deals,
        "seeds": [0, deals - 1],
        "mean": round(interval.mean, 4),
        "sd": round(interval.sd, 4),
        "se": round(interval.se, 4),
        "level": LEVEL,
        "ci_low": None if interval.low is None else round(interval.low, 4),
        "ci_high": None if interval.high is None else round(interval.high, 4),
        "meets_goal": interval.low is not None and interval.low > 0,
        "wins": sum(value > 0 for value in differences),
        "ties": sum(value == 0 for value in differences),
        "losses": sum(value < 0 for value in differences),
        "differences": differences,
        "bot_decisions": len(times),
        "decision_ms": _ms(times),
        "faults": dict(sorted(faults.items())),
        "forfeits": forfeits,
        "seconds": round(seconds, 1),
    }
