"""A bot that plays the arena's heuristic for its game, or random where the game has none."""

from __future__ import annotations

import random

from cardarena_sdk import Bot, MatchInfo, Request, match_seed, reference_policy, serve


class HeuristicBot(Bot):
    """The reference heuristic, fed the engine observation of each request."""

    name = "heuristic"
    version = "1.0.0"

    def on_match_start(self, match: MatchInfo) -> None:
        """Load the game's heuristic policy for this seat (None when the game has none)."""
        self.rng = random.Random(match_seed(match))
        self.policy = reference_policy(match, "heuristic")

    def act(self, request: Request) -> int:
        """The heuristic's choice as a wire id, or a random legal action."""
        if self.policy is None:
            return request.random_action(self.rng)
        return request.wire_id(self.policy.act(request.observation))


if __name__ == "__main__":
    serve(HeuristicBot)
