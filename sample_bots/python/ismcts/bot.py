"""Information-set Monte Carlo tree search as an arena bot (``cardarena_sdk.ismcts``).

Per decision the bot grows one search tree over its seat's information sets, drawing a fresh
state consistent with its observation at every iteration, until its time budget is spent (or
for a fixed number of iterations). It plays the arena's heuristic's action unless the search
finds another clearly better (the heuristic is the search's guide), in which case it plays
the root action visited most. With one legal action it answers at once; when no consistent
state can be drawn in time it plays the heuristic.

The clock: the search stops at the budget, which is never more than half of the time the
request leaves (decision time plus bank); an iteration under way then finishes, so a decision
takes the budget plus at most one iteration (docs/bots.md states the margin measured).

Settings (environment):
- ``ISMCTS_BUDGET_MS``: time per decision (default 100);
- ``ISMCTS_ITERATIONS``: iterations per decision instead of a time budget (the bot is then
  deterministic: the same match and seat give the same answers);
- ``ISMCTS_ROLLOUT``: ``random`` or ``heuristic`` playouts (default: per game, as measured:
  ``HEURISTIC_ROLLOUT_GAMES`` play heuristic playouts, the others random ones);
- ``ISMCTS_GUIDE``: ``heuristic`` (default) or ``none`` (always the most visited action);
- ``ISMCTS_CONFIDENCE``: standard errors by which the search's action must beat the guide's;
- ``ISMCTS_EXPLORATION``: the UCB constant on values normalized to [0, 1];
- ``ISMCTS_POINTS_WEIGHT``: the weight of the card points in a hand's value (0: the hand's
  score alone).
"""

from __future__ import annotations

import os
import random
import time

from cardarena_sdk import Bot, MatchInfo, Request, match_seed, reference_policy, serve
from cardarena_sdk.ismcts import (
    DEFAULT_CONFIDENCE,
    DEFAULT_EXPLORATION,
    DEFAULT_POINTS_WEIGHT,
    ISMCTS,
)
from cardarena_sdk.search import SamplingError

DEFAULT_BUDGET_MS = 100
"""Time spent on one decision when the request allows it."""
HEURISTIC_ROLLOUT_GAMES = frozenset({
    "briscola-chiamata", "briscola-chiamata-carta", "briscola-chiamata-punti",
    "briscola-chiamata-morto", "briscola-chiamata-due-mazzi"})
"""Games where heuristic playouts measured better than random ones at 100 ms a decision
(``arena bench rollouts`` and ``arena compare``; docs/bots.md): the Briscola chiamata family,
where random partners misjudge every bid and call. Elsewhere random playouts measured as good
or better, and a search runs more of them."""
DEFAULT_GUIDE = "heuristic"


def rollout_for(game_id: str) -> str:
    """The playout policy measured best in a game: ``heuristic`` or ``random``."""
    return "heuristic" if game_id in HEURISTIC_ROLLOUT_GAMES else "random"


class ISMCTSBot(Bot):
    """The SDK's ISMCTS, sized to a time budget or a number of iterations per decision."""

    name = "ismcts"
    version = "1.0.0"

    def __init__(self) -> None:
        """Read the settings from the environment."""
        env = os.environ
        self.budget_ms = int(env.get("ISMCTS_BUDGET_MS", DEFAULT_BUDGET_MS))
        iterations = env.get("ISMCTS_ITERATIONS", "")
        self.iterations = int(iterations) if iterations else None
        self.rollout = env.get("ISMCTS_ROLLOUT", "")
        """The playout policy; empty: per game (``rollout_for``)."""
        self.exploration = float(env.get("ISMCTS_EXPLORATION", DEFAULT_EXPLORATION))
        self.points_weight = float(env.get("ISMCTS_POINTS_WEIGHT", DEFAULT_POINTS_WEIGHT))
        guide = env.get("ISMCTS_GUIDE", DEFAULT_GUIDE)
        self.guide = None if guide == "none" else guide
        self.confidence = float(env.get("ISMCTS_CONFIDENCE", DEFAULT_CONFIDENCE))

    def on_match_start(self, match: MatchInfo) -> None:
        """Prepare the search for this match's game and seat."""
        self.rng = random.Random(match_seed(match))
        self.search = ISMCTS(match.game, match.seat, self.rng, exploration=self.exploration,
                             rollout=self.rollout or rollout_for(match.game.id),
                             points_weight=self.points_weight,
                             guide=self.guide, confidence=self.confidence)
        self.fallback = reference_policy(match, "heuristic")

    def act(self, request: Request) -> int:
        """The wire id of the root action the search visited most."""
        observation = request.observation
        legal = observation.legal_actions
        if len(legal) == 1:
            return request.wire_id(legal[0])
        deadline = None
        if self.iterations is None:
            deadline = time.perf_counter() + request.budget_s(self.budget_ms)
        try:
            result = self.search.search(observation, iterations=self.iterations,
                                        deadline=deadline)
        except SamplingError:
            return request.policy_action(self.fallback, self.rng)
        request.debug = result.describe()
        return request.wire_id(result.action)


if __name__ == "__main__":
    serve(ISMCTSBot)
