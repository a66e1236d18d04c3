"""Stops itself: its 2nd decision sends SIGSTOP to its own process."""

from __future__ import annotations

import os
import signal
import sys

from cardarena_sdk import Bot, Request, serve


class StoppingBot(Bot):
    """Plays the first legal action once, then stops its process."""

    name = "stops-itself"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, then SIGSTOP to itself."""
        self.decisions += 1
        if self.decisions == 2:
            print("stops-itself: stopping", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGSTOP)
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(StoppingBot)
