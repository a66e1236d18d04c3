"""A memory bomb: its 2nd decision fills memory, 16 MiB at a time, without end.

It refuses to start outside the arena's container.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from cardarena_sdk import Bot, Request, serve

SANDBOX_ADDRESS = "unix:/run/cardarena/agent.sock"
CHUNK = 16 << 20


def require_sandbox() -> None:
    """Exit unless this runs in a container at the sandbox's socket address."""
    if not os.path.exists("/.dockerenv") or os.environ.get("CARDARENA_ADDRESS") != SANDBOX_ADDRESS:
        sys.exit("memory-bomb: refusing to run outside the Card Arena sandbox")


def bomb() -> NoReturn:
    """Keep allocating written (so resident) memory."""
    hoard = []
    while True:
        hoard.append(b"\x01" * CHUNK)
        if len(hoard) % 8 == 0:
            print(f"memory-bomb: {len(hoard) * CHUNK >> 20} MiB", file=sys.stderr, flush=True)


class HoardingBot(Bot):
    """Plays the first legal action once, then allocates without end."""

    name = "memory-bomb"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action, then the bomb."""
        self.decisions += 1
        if self.decisions == 2:
            print("memory-bomb: allocating", file=sys.stderr, flush=True)
            bomb()
        return request.legal_ids[0]


if __name__ == "__main__":
    require_sandbox()
    serve(HoardingBot)
