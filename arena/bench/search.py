"""``arena bench search``: iterations per second of the SDK's ISMCTS against OpenSpiel's.

For each game, ``positions`` decisions are taken from seeded random playouts (a decision
with a choice, at a random depth). At each one, the two searches run from the deciding seat's
point of view with random rollouts, alternately, for the same CPU time (``seconds``):

- the SDK's ISMCTS (``cardarena_sdk.ismcts``), with a deadline, counting its iterations;
- OpenSpiel's ``ISMCTSBot`` on the same state through the OpenSpiel bridge
  (``arena.bridges.openspiel``), with ``RandomRolloutEvaluator``; it runs a fixed number of
  simulations, sized from a short first search to take about the same time.

Each search is timed by the measuring thread's CPU time, so other processes on a shared
machine do not lower the rates; a position gives one ratio (the SDK's iterations per CPU
second over OpenSpiel's simulations per CPU second), and the report gives, per game, the
medians of the rates and of the positions' ratios. A position where the SDK finds no state
consistent with the seat's view (``SamplingError``: Vecchia, Tressette a toro over several
rounds) is counted as ``unsampled`` and left out.
"""

from __future__ import annotations

import random
import statistics
from typing import Any

from arena.bench.engine import CPU_CLOCK, CPU_CLOCK_NAME, CPU_RESOLUTION
from arena.bench.errors import BenchError
from arena.bench.protocol import Progress
from arena.games import ENGINE, Game, State, game_ids, load_game

GOAL_RATIO = 2.0
"""The SDK's ISMCTS should run at least this many iterations per OpenSpiel simulation."""
DEFAULT_SECONDS = 0.2
"""CPU time of one search."""
DEFAULT_POSITIONS = 5
"""Positions searched per game."""
FIRST_SIMULATIONS = 4
"""OpenSpiel simulations of the sizing search."""
MAX_SIMULATIONS = 100_000
INSTALL_HINT = ("the search benchmark needs OpenSpiel (module pyspiel), which is not "
                "installed: run pip install -e '.[bench]'")


def positions(game: Game, count: int) -> list[State]:
    """``count`` decisions with a choice, from seeded random playouts (seeds 0, 1, ...)."""
    found = []
    for seed in range(count):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        history = []
        while not state.is_terminal():
            history.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
        choices = [past for past in history if len(past.legal_actions()) > 1]
        if choices:
            found.append(rng.choice(choices))
    return found


def sdk_rate(game: Game, state: State, seconds: float, seed: int) -> tuple[float, int]:
    """The SDK's ISMCTS iterations per CPU second at ``state``, and the iterations run."""
    from cardarena_sdk.ismcts import ISMCTS

    seat = state.current_player()
    search = ISMCTS(game, seat, random.Random(seed), rollout="random")
    started = CPU_CLOCK()
    result = search.search(state.observation(seat), deadline=started + seconds, clock=CPU_CLOCK)
    spent = max(CPU_CLOCK() - started, CPU_RESOLUTION)
    return result.iterations / spent, result.iterations


def openspiel_rate(game: Game, state: State, seconds: float, seed: int) -> tuple[float, int]:
    """OpenSpiel's ISMCTS simulations per CPU second at ``state``, and the simulations run."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    from arena.bridges.openspiel import short_name, state_of

    spiel_game = pyspiel.load_game(short_name(game.id),
                                   {"players": game.num_players, **game.params})

    def run(simulations: int) -> float:
        """CPU seconds of one search of ``simulations`` simulations."""
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1,
                                                random_state=np.random.RandomState(seed))
        bot = ismcts.ISMCTSBot(spiel_game, evaluator, 2.0, simulations,
                               random_state=np.random.RandomState(seed))
        spiel_state = state_of(spiel_game, state)
        started = CPU_CLOCK()
        bot.step(spiel_state)
        return max(CPU_CLOCK() - started, CPU_RESOLUTION)

    first = run(FIRST_SIMULATIONS)
    simulations = max(FIRST_SIMULATIONS,
                      min(MAX_SIMULATIONS, int(seconds * FIRST_SIMULATIONS / first)))
    return simulations / run(simulations), simulations


def measure_game(game: Game, count: int, seconds: float, progress: Progress) -> dict[str, Any]:
    """One game's medians: the SDK's rate, OpenSpiel's, and the positions' ratios."""
    from cardarena_sdk.search import SamplingError

    sdk_rates, spiel_rates, ratios, iterations = [], [], [], []
    unsampled = 0
    for index, state in enumerate(positions(game, count)):
        progress(f"{game.id} ({game.num_players} seats), position {index + 1} of {count}")
        try:
            sdk, done = sdk_rate(game, state, seconds, index)
        except SamplingError:
            unsampled += 1  # the SDK's bot plays its fallback there
            continue
        spiel, _ = openspiel_rate(game, state, seconds, index)
        sdk_rates.append(sdk)
        spiel_rates.append(spiel)
        ratios.append(sdk / spiel)
        iterations.append(done)
    ratio = statistics.median(ratios) if ratios else None
    return {
        "game": game.id, "players": game.num_players, "positions": len(ratios),
        "unsampled": unsampled,
        "sdk_per_s": statistics.median(sdk_rates) if ratios else None,
        "openspiel_per_s": statistics.median(spiel_rates) if ratios else None,
        "ratio": ratio, "ratio_samples": ratios, "sdk_iterations": iterations,
        "meets_goal": ratio is not None and ratio >= GOAL_RATIO,
    }


def run_search_bench(game_id: str | None, count: int, seconds: float,
                     progress: Progress) -> dict[str, Any]:
    """Measure every game (or ``game_id``); the report with each game's figures."""
    try:
        import pyspiel  # noqa: F401
    except ModuleNotFoundError:
        raise BenchError(INSTALL_HINT) from None
    if count < 1 or seconds <= 0:
        raise BenchError("--positions must be at least 1 and --seconds above 0")
    chosen = [game_id] if game_id is not None else game_ids()
    games = []
    for name in chosen:
        try:
            game = load_game(name)
        except ValueError as error:
            raise BenchError(str(error)) from None
        games.append(measure_game(game, count, seconds, progress))
    return {"engine": ENGINE, "clock": CPU_CLOCK_NAME, "seconds": seconds, "positions": count,
            "goal_ratio": GOAL_RATIO, "rollouts": "random", "games": games}
