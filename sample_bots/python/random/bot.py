"""A bot that plays a uniformly random legal action, seeded by its match."""

from __future__ import annotations

import random

from cardarena_sdk import Bot, MatchInfo, Request, match_seed, serve


class RandomBot(Bot):
    """Uniform over the legal actions."""

    name = "random"
    version = "1.0.0"

    def on_match_start(self, match: MatchInfo) -> None:
        """Seed the generator from the match id and seat."""
        self.rng = random.Random(match_seed(match))

    def act(self, request: Request) -> int:
        """A random legal action id."""
        return request.random_action(self.rng)


if __name__ == "__main__":
    serve(RandomBot)
