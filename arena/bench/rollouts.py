"""``arena bench rollouts``: which playout policy makes the SDK's ISMCTS stronger, per game.

Each deal (seed ``seed + d``) is played three times with the heuristic in every seat but one,
seat ``d`` modulo the seat count, which is played by the SDK's ISMCTS guided by the heuristic
(as the ``ismcts`` sample bot plays) with random playouts, then with heuristic playouts, then
by the heuristic itself (the baseline). A deal gives, for each playout policy, the seat's
return minus the baseline's on the same cards, and their difference; the report gives per
game the mean of each with its 95% interval (Student's t, ``arena.bench.stats``). Each search
gets ``budget_ms`` of the measuring thread's CPU time, so other processes on a shared machine
do not shorten it. The ``ismcts`` sample bot's per-game choice of playouts
(``HEURISTIC_ROLLOUT_GAMES``) follows these figures (docs/bots.md).
"""

from __future__ import annotations

import random
from typing import Any

from arena.bench.engine import CPU_CLOCK, CPU_CLOCK_NAME
from arena.bench.errors import BenchError
from arena.bench.protocol import Progress
from arena.bench.stats import MeanInterval, mean_interval
from arena.games import Game, game_ids, load_game
from arena.policies.base import has_heuristic, make_policy

ROLLOUTS = ("random", "heuristic")
"""The playout policies compared."""
DEFAULT_DEALS = 20
DEFAULT_BUDGET_MS = 100


def play_deal(game: Game, seed: int, seat: int, rollout: str | None, budget_s: float) -> float:
    """``seat``'s return in the deal ``seed``: the heuristic everywhere, but the SDK's ISMCTS
    with ``rollout`` playouts at ``seat`` (None: the heuristic there too)."""
    from cardarena_sdk.ismcts import ISMCTS
    from cardarena_sdk.search import SamplingError

    state = game.new_initial_state(seed)
    heuristics = [make_policy("heuristic", game, other, seed * 31 + other)
                  for other in range(game.num_players)]
    search = None
    if rollout is not None:
        search = ISMCTS(game, seat, random.Random(seed), rollout=rollout, guide="heuristic")
    while not state.is_terminal():
        mover = state.current_player()
        observation = state.observation(mover)
        action = None
        if mover == seat and search is not None and len(observation.legal_actions) > 1:
            try:
                action = search.search(observation, deadline=CPU_CLOCK() + budget_s,
                                       clock=CPU_CLOCK).action
            except SamplingError:
                action = None  # the sample bot plays the heuristic there
        if action is None:
            action = heuristics[mover].act(observation)
        state.apply_action(action)
    return state.returns()[seat]


def interval(values: list[float]) -> dict[str, Any]:
    """A mean and its 95% interval, as the report keeps them."""
    found: MeanInterval = mean_interval(values)
    return {"mean": found.mean, "low": found.low, "high": found.high,
            "excludes_zero": found.excludes_zero}


def measure_game(game: Game, deals: int, seed: int, budget_s: float,
                 progress: Progress) -> dict[str, Any]:
    """One game's paired differences: each playout policy against the baseline, and
    heuristic playouts against random ones."""
    gains: dict[str, list[float]] = {rollout: [] for rollout in ROLLOUTS}
    for index in range(deals):
        progress(f"{game.id} ({game.num_players} seats), deal {index + 1} of {deals}")
        deal_seed, seat = seed + index, index % game.num_players
        baseline = play_deal(game, deal_seed, seat, None, budget_s)
        for rollout in ROLLOUTS:
            gains[rollout].append(play_deal(game, deal_seed, seat, rollout, budget_s) - baseline)
    edge = [better - worse
            for better, worse in zip(gains["heuristic"], gains["random"], strict=True)]
    return {"game": game.id, "players": game.num_players, "deals": deals,
            **{f"{rollout}_gain": interval(gains[rollout]) for rollout in ROLLOUTS},
            "heuristic_edge": interval(edge)}


def run_rollouts_bench(game_id: str | None, deals: int, budget_ms: int, seed: int,
                       progress: Progress) -> dict[str, Any]:
    """Measure every game with a heuristic (or ``game_id``); the report."""
    if deals < 2 or budget_ms < 1:
        raise BenchError("--deals must be at least 2 and --budget-ms at least 1")
    chosen = [game_id] if game_id is not None else [
        name for name in game_ids() if has_heuristic(name)]
    games = []
    for name in chosen:
        try:
            game = load_game(name)
        except ValueError as error:
            raise BenchError(str(error)) from None
        if not has_heuristic(name):
            raise BenchError(f"game {name!r} has no heuristic to guide and play out with")
        games.append(measure_game(game, deals, seed, budget_ms / 1000, progress))
    return {"budget_ms": budget_ms, "clock": CPU_CLOCK_NAME, "seed": seed, "games": games}
