"""Crashes mid-match: aborts (SIGABRT, as a failed native assertion does) at its 3rd decision."""

from __future__ import annotations

import os
import sys

from cardarena_sdk import Bot, Request, serve


class AbortingBot(Bot):
    """Plays the first legal action twice, then aborts."""

    name = "crash-mid-match"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, until the 3rd decision aborts the process."""
        self.decisions += 1
        if self.decisions == 3:
            print("crash-mid-match: aborting", file=sys.stderr, flush=True)
            os.abort()
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(AbortingBot)
