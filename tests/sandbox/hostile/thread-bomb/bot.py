"""A thread bomb: its 2nd decision starts threads that never end until one is refused, then it
plays on with what it has.

It refuses to start outside the arena's container.
"""

from __future__ import annotations

import os
import sys
import threading

from cardarena_sdk import Bot, Request, serve

SANDBOX_ADDRESS = "unix:/run/cardarena/agent.sock"
MOST = 100_000


def require_sandbox() -> None:
    """Exit unless this runs in a container at the sandbox's socket address."""
    if not os.path.exists("/.dockerenv") or os.environ.get("CARDARENA_ADDRESS") != SANDBOX_ADDRESS:
        sys.exit("thread-bomb: refusing to run outside the Card Arena sandbox")


def bomb() -> None:
    """Start waiting threads until the system refuses one; report how many started."""
    forever = threading.Event()
    started = 0
    try:
        while started < MOST:
            threading.Thread(target=forever.wait, daemon=True).start()
            started += 1
    except RuntimeError as error:
        print(f"thread-bomb: thread refused after {started} threads "
              f"({type(error).__name__}: {error})", file=sys.stderr, flush=True)
        return
    print(f"thread-bomb: {started} threads started, none refused", file=sys.stderr, flush=True)


class ThreadingBot(Bot):
    """Plays the first legal action, with a thread bomb at the 2nd decision."""

    name = "thread-bomb"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action (after the bomb, the 2nd time)."""
        self.decisions += 1
        if self.decisions == 2:
            bomb()
        return request.legal_ids[0]


if __name__ == "__main__":
    require_sandbox()
    serve(ThreadingBot)
