"""Raises an exception in act at its 3rd decision; the SDK ends the stream with INTERNAL."""

from __future__ import annotations

from cardarena_sdk import Bot, Request, serve


class RaisingBot(Bot):
    """Plays the first legal action twice, then raises."""

    name = "raises-in-act"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, until the 3rd decision raises."""
        self.decisions += 1
        if self.decisions == 3:
            raise ValueError("no card to play")
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(RaisingBot)
