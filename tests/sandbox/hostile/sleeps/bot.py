"""Sleeps: its 2nd decision sleeps for an hour."""

from __future__ import annotations

import sys
import time

from cardarena_sdk import Bot, Request, serve


class SleepingBot(Bot):
    """Plays the first legal action once, then sleeps."""

    name = "sleeps"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, then an hour's sleep."""
        self.decisions += 1
        if self.decisions == 2:
            print("sleeps: sleeping", file=sys.stderr, flush=True)
            time.sleep(3600)
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(SleepingBot)
