"""A fork bomb: its 2nd decision forks without end, and so does every child.

It refuses to start outside the arena's container (it would take the machine down).
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

from cardarena_sdk import Bot, Request, serve

SANDBOX_ADDRESS = "unix:/run/cardarena/agent.sock"


def require_sandbox() -> None:
    """Exit unless this runs in a container at the sandbox's socket address."""
    if not os.path.exists("/.dockerenv") or os.environ.get("CARDARENA_ADDRESS") != SANDBOX_ADDRESS:
        sys.exit("fork-bomb: refusing to run outside the Card Arena sandbox")


def bomb() -> NoReturn:
    """Fork forever in every process; the first process reports the first refusal.

    The garbage collector is frozen first: a collection in every child would copy the whole
    heap, and the bomb would meet the memory limit (and the OOM killer) before the process
    limit, which is the limit this bot is here to meet."""
    gc.disable()
    gc.freeze()
    first = os.getpid()
    forks = 0
    refused = False
    while True:
        try:
            child = os.fork()
        except OSError as error:
            if os.getpid() == first and not refused:
                refused = True
                print(f"fork-bomb: fork refused after {forks} forks "
                      f"({type(error).__name__}: {error})", file=sys.stderr, flush=True)
            continue
        if child:
            forks += 1


class ForkingBot(Bot):
    """Plays the first legal action once, then forks without end."""

    name = "fork-bomb"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, then the bomb."""
        self.decisions += 1
        if self.decisions == 2:
            print("fork-bomb: forking", file=sys.stderr, flush=True)
            bomb()
        return request.legal_ids[0]


if __name__ == "__main__":
    require_sandbox()
    serve(ForkingBot)
