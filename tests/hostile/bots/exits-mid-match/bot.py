"""Exits with status 0 mid-match, at its 3rd decision, as if it thought its work was done."""

from __future__ import annotations

import os
import sys

from cardarena_sdk import Bot, Request, serve


class QuittingBot(Bot):
    """Plays the first legal action twice, then exits."""

    name = "exits-mid-match"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, until the 3rd decision exits the process with status 0."""
        self.decisions += 1
        if self.decisions == 3:
            print("exits-mid-match: done here", file=sys.stderr, flush=True)
            os._exit(0)
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(QuittingBot)
