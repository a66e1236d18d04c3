"""A bot that plays the first legal action."""

from __future__ import annotations

from cardarena_sdk import Bot, Request, serve


class FirstBot(Bot):
    """Always the first legal action."""

    name = "good"
    version = "1.2.0"

    def act(self, request: Request) -> int:
        """The first legal action id."""
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(FirstBot)
