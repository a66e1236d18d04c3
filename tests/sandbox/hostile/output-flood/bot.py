"""Floods its output: 256 KiB on stdout and 256 KiB on stderr with every decision, and plays.

It refuses to start outside the arena's container.
"""

from __future__ import annotations

import os
import sys

from cardarena_sdk import Bot, Request, serve

SANDBOX_ADDRESS = "unix:/run/cardarena/agent.sock"
LINE = "output-flood " * 63 + "\n"
BLOCK = LINE * (256 * 1024 // len(LINE))


def require_sandbox() -> None:
    """Exit unless this runs in a container at the sandbox's socket address."""
    if not os.path.exists("/.dockerenv") or os.environ.get("CARDARENA_ADDRESS") != SANDBOX_ADDRESS:
        sys.exit("output-flood: refusing to run outside the Card Arena sandbox")


class FloodingBot(Bot):
    """The first legal action, after a flood on both streams."""

    name = "output-flood"

    def act(self, request: Request) -> int:
        """Flood, then the first legal action."""
        sys.stdout.write(BLOCK)
        sys.stdout.flush()
        sys.stderr.write(BLOCK)
        sys.stderr.flush()
        return request.legal_ids[0]


if __name__ == "__main__":
    require_sandbox()
    serve(FloodingBot)
