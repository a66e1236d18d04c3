"""OpenSpiel's information-set MCTS as an arena bot: any OpenSpiel algorithm can play in
leagues, ``arena compare`` and ``arena play`` the same way.

Per decision, the bot samples a full state consistent with what its seat has seen
(``cardarena_sdk.search``), turns it into the OpenSpiel game's state
(``arena.bridges.openspiel``: every game is registered as ``cardarena_<id>``), and runs
OpenSpiel's ``ISMCTSBot`` from it; ISMCTS resamples the hidden cards itself at every
simulation (``resample_from_infostate``). The number of simulations follows the time per
decision: the bot measures its time per simulation and sizes the next search to the budget.
With one legal action, or when no consistent state can be sampled, it plays the arena's
heuristic instead.

Settings (environment): ``ISMCTS_BUDGET_MS`` time per decision (default 100, never more than
half the time the request leaves), ``ISMCTS_UCT_C`` the exploration constant (default 2).
Needs OpenSpiel (``pip install open_spiel``, the ``bench`` extra of card-arena).
"""

from __future__ import annotations

import os
import random
import time

import numpy as np
import pyspiel
from cardarena_sdk import Bot, MatchInfo, Request, match_seed, reference_policy, serve
from cardarena_sdk.search import Sampler, SamplingError
from open_spiel.python.algorithms import ismcts, mcts

from arena.bridges.openspiel import short_name, state_of

DEFAULT_BUDGET_MS = 100
"""Time spent on one decision when the request allows it."""
FIRST_SIMULATIONS = 8
"""Simulations of the first search, before the bot knows how long one takes."""
MIN_SIMULATIONS = 2
"""OpenSpiel's ISMCTS counts the root's visits from its second simulation on."""
MAX_SIMULATIONS = 2000


class ISMCTSArenaBot(Bot):
    """OpenSpiel's ISMCTS with random rollouts, sized to a time budget per decision."""

    name = "openspiel-ismcts"
    version = "1.0.0"

    def __init__(self) -> None:
        """Take the budget and the exploration constant from the environment."""
        self.budget_ms = int(os.environ.get("ISMCTS_BUDGET_MS", DEFAULT_BUDGET_MS))
        self.uct_c = float(os.environ.get("ISMCTS_UCT_C", "2"))
        self.simulation_s: float | None = None
        """The measured time of one simulation in this match (a moving mean)."""

    def on_match_start(self, match: MatchInfo) -> None:
        """Load the OpenSpiel game of the match's configuration and prepare the sampler."""
        game = match.game
        self.rng = random.Random(match_seed(match))
        self.sampler = Sampler(game)
        self.spiel_game = pyspiel.load_game(short_name(game.id),
                                            {"players": game.num_players, **game.params})
        self.fallback = reference_policy(match, "heuristic")
        self.simulation_s = None  # each game's simulations take their own time

    def act(self, request: Request) -> int:
        """The action ISMCTS visits most from a state consistent with the seat's view."""
        observation = request.observation
        legal = list(observation.legal_actions)
        if len(legal) == 1:
            return request.wire_id(legal[0])
        try:
            world = self.sampler.sample(observation, self.rng,
                                        time.perf_counter() + request.budget_s(self.budget_ms))
        except SamplingError:
            return request.policy_action(self.fallback, self.rng)
        simulations = self._simulations(request)
        seed = self.rng.getrandbits(31)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1,
                                                random_state=np.random.RandomState(seed))
        search = ismcts.ISMCTSBot(self.spiel_game, evaluator, self.uct_c, simulations,
                                  random_state=np.random.RandomState(seed))
        started = time.perf_counter()
        action = int(search.step(state_of(self.spiel_game, world)))
        self._note((time.perf_counter() - started) / simulations)
        request.debug = f"ismcts simulations={simulations}"
        return request.wire_id(action)

    def _simulations(self, request: Request) -> int:
        """How many simulations fit the budget at the measured time of one."""
        budget_s = request.budget_s(self.budget_ms)
        if self.simulation_s is None:
            return FIRST_SIMULATIONS
        return max(MIN_SIMULATIONS, min(MAX_SIMULATIONS, int(budget_s / self.simulation_s)))

    def _note(self, seconds: float) -> None:
        """Fold one search's time per simulation into the moving mean."""
        if self.simulation_s is None:
            self.simulation_s = seconds
        else:
            self.simulation_s = 0.7 * self.simulation_s + 0.3 * seconds



if __name__ == "__main__":
    serve(ISMCTSArenaBot)
