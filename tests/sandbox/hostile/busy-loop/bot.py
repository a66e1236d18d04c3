"""Spins: from its 2nd decision on, act loops forever without sleeping."""

from __future__ import annotations

import sys

from cardarena_sdk import Bot, Request, serve


class SpinningBot(Bot):
    """Plays the first legal action once, then spins."""

    name = "busy-loop"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, then a loop that never ends."""
        self.decisions += 1
        if self.decisions == 2:
            print("busy-loop: spinning", file=sys.stderr, flush=True)
            while True:
                pass
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(SpinningBot)
