"""Hangs: from its 2nd decision on, act never returns."""

from __future__ import annotations

import threading

from cardarena_sdk import Bot, Request, serve


class HangingBot(Bot):
    """Plays the first legal action once, then waits forever."""

    name = "hangs"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, then a wait that never ends."""
        self.decisions += 1
        if self.decisions >= 2:
            threading.Event().wait()
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(HangingBot)
