"""``arena bench languages``: one strategy in several languages, its decision times compared.

The sample bots ``sample_bots/python/portable``, ``rust/heuristic``, ``cpp/heuristic`` and
``go/heuristic`` play the same portable heuristic (docs/portable-heuristic.md). Each plays the
same duplicate deals of a few two-seat games against the seeded random policy (each game's
deals with seeds of their own, as a bot process is never shown one deal twice), as real
processes over Unix sockets (one per rotation), one bot after the other in one run; the report
gives each bot's decision times as the runner recorded them (the time the clock charges: the
round trip less the arena's own waits) and their ratio to the first bot's. Since the
strategy is the same and deterministic, every bot must make the same moves: the report says
whether each bot's matches are identical to the first bot's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.agents import PolicySeat
from arena.bench.errors import BenchError
from arena.bench.launched import launched_bots
from arena.bench.protocol import ROOT, STARTUP_S, Progress, temp_root
from arena.bench.stats import percentile
from arena.bots import BotManifest, ensure_built
from arena.games import load_game
from arena.games.rng import derive_seed
from arena.match.results import DuplicateResult
from arena.match.runner import run_duplicate_async

GAMES: tuple[tuple[str, int], ...] = (("briscola", 2), ("scopa", 2), ("tressette", 2))
"""The games every bot plays (id, seats)."""

OPPONENT = "random"
DEFAULT_DEALS = 10
"""Duplicate deals per game in a default run."""

SAMPLE_PORTS: tuple[Path, ...] = tuple(
    ROOT / "sample_bots" / folder
    for folder in ("python/portable", "rust/heuristic", "cpp/heuristic", "go/heuristic"))
"""The portable heuristic's sample bots in a source checkout, the reference first."""

BOT = 0
"""The bot's entrant index (the random policy is entrant 1)."""


def default_bots() -> list[Path]:
    """The sample ports present in this checkout."""
    return [path for path in SAMPLE_PORTS if (path / "bot.toml").is_file()]


async def _play_bot(manifest: BotManifest, deals: int, progress: Progress
                    ) -> tuple[dict[str, list[DuplicateResult]], list[int]]:
    """Every game's duplicate sets for one bot, started once, and the round trips (µs) of its
    decisions (the runner's wait for each answer)."""
    results: dict[str, list[DuplicateResult]] = {}
    with temp_root() as root:
        async with launched_bots(manifest, root, 1, STARTUP_S, rotations=2) as (bot,):
            for game_id, seats in GAMES:
                game = load_game(game_id, seats)
                sets = results[game_id] = []
                for deal in range(deals):
                    progress(f"{manifest.name}: {game_id}, deal {deal + 1} of {deals}")
                    seed = derive_seed(deal, game_id)
                    result = await run_duplicate_async(game, seed, [bot, PolicySeat(OPPONENT)])
                    problems = [p for deal in result.deals for p in deal.problems()]
                    if result.void or problems:
                        raise BenchError(f"{manifest.name}: {game_id} deal {deal}: "
                                         f"{'; '.join(problems) or 'void'}")
                    sets.append(result)
            return results, bot.trips


def _moves(results: dict[str, list[DuplicateResult]]) -> list[tuple[int, ...]]:
    """Every deal's actions, in a fixed order, for comparing bots."""
    return [tuple(deal.record.actions) for sets in results.values() for result in sets
            for deal in result.deals if deal.record is not None]


def _first_difference(mine: Sequence[tuple[int, ...]], reference: Sequence[tuple[int, ...]],
                      labels: Sequence[str]) -> str | None:
    """Where a bot's moves first differ from the reference bot's, or None."""
    for label, ours, theirs in zip(labels, mine, reference, strict=True):
        if ours != theirs:
            step = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b),
                        min(len(ours), len(theirs)))
            return f"{label}, action {step}"
    return None


def _deal_labels(results: dict[str, list[DuplicateResult]]) -> list[str]:
    """A label per deal in ``_moves`` order."""
    return [f"{game_id} seed {result.seed} order {order}" for game_id, sets in results.items()
            for result in sets for order, deal in enumerate(result.deals)
            if deal.record is not None]


def run_languages_bench(bots: Sequence[Path] | None = None, deals: int = DEFAULT_DEALS,
                        progress: Progress | None = None) -> dict[str, Any]:
    """Play every bot; the JSON-ready report."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    paths = list(bots) if bots else default_bots()
    if not paths:
        raise BenchError("no bot to measure: the sample ports are not in this checkout; "
                         "pass --bot PATH")
    say = progress or (lambda text: None)
    entries: list[dict[str, Any]] = []
    reference: list[tuple[int, ...]] | None = None
    reference_p50 = 0.0
    for path in paths:
        manifest = BotManifest.load(path)
        say(f"building {manifest.name}")
        ensure_built(manifest, progress=say)
        results, times = asyncio.run(_play_bot(manifest, deals, say))
        moves = _moves(results)
        if reference is None:
            reference, difference = moves, None
            reference_p50 = percentile(times, 50)
        else:
            difference = _first_difference(moves, reference, _deal_labels(results))
        p50 = percentile(times, 50)
        entries.append({
            "bot": manifest.name, "version": manifest.version, "language": manifest.language,
            "path": manifest.source, "decisions": len(times),
            "p50_us": round(p50, 1), "p95_us": round(percentile(times, 95), 1),
            "p99_us": round(percentile(times, 99), 1),
            "mean_us": round(sum(times) / len(times), 1),
            "ratio_p50": round(p50 / reference_p50, 3) if reference_p50 else None,
            "same_moves": difference is None, "first_difference": difference,
        })
    return {"games": [f"{game_id}/{seats}" for game_id, seats in GAMES], "deals": deals,
            "opponent": OPPONENT, "reference": entries[0]["bot"], "results": entries}
