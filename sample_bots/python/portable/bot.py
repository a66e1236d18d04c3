"""A bot that plays the portable heuristic, the strategy every language's sample bot shares."""

from __future__ import annotations

from cardarena_sdk import Bot, MatchInfo, Request, serve
from strategy import Figures, choose


class PortableBot(Bot):
    """The portable heuristic, read from the wire messages alone."""

    name = "portable"
    version = "1.0.0"

    def on_match_start(self, match: MatchInfo) -> None:
        """Read the game id and the deck's card figures."""
        self.figures = Figures.from_match_start(match.raw)

    def act(self, request: Request) -> int:
        """The id of the best-scoring legal action."""
        return choose(self.figures, request.raw)


if __name__ == "__main__":
    serve(PortableBot)
