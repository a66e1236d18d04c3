"""Pauses: its 2nd decision waits for a signal (``signal.pause``) that never comes."""

from __future__ import annotations

import signal
import sys

from cardarena_sdk import Bot, Request, serve


class PausingBot(Bot):
    """Plays the first legal action once, then pauses."""

    name = "pauses"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, then a wait for a signal."""
        self.decisions += 1
        if self.decisions == 2:
            print("pauses: pausing", file=sys.stderr, flush=True)
            while True:
                signal.pause()
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(PausingBot)
