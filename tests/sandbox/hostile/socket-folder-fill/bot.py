"""Stores 8 MiB in its socket folder, the one folder it shares with the host, then serves as
a legal bot would: the arena must refuse a socket folder that holds more than the socket.
The folder's file system takes one page at most, so the write stops early; the bot keeps
the file and serves (or, when its socket no longer fits, waits) all the same.

It refuses to start outside the arena's container.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from cardarena_sdk import Bot, Request, serve

SANDBOX_ADDRESS = "unix:/run/cardarena/agent.sock"
STORE = Path("/run/cardarena/store.bin")
SIZE = 8 << 20


def require_sandbox() -> None:
    """Exit unless this runs in a container at the sandbox's socket address."""
    if not os.path.exists("/.dockerenv") or os.environ.get("CARDARENA_ADDRESS") != SANDBOX_ADDRESS:
        sys.exit("socket-folder-fill: refusing to run outside the Card Arena sandbox")


class FirstLegal(Bot):
    """The first legal action."""

    name = "socket-folder-fill"

    def act(self, request: Request) -> int:
        """The first legal action."""
        return request.legal_ids[0]


if __name__ == "__main__":
    require_sandbox()
    try:
        STORE.write_bytes(b"\x01" * SIZE)
        print(f"socket-folder-fill: stored {SIZE >> 20} MiB in {STORE}", file=sys.stderr,
              flush=True)
    except OSError as error:
        print(f"socket-folder-fill: storing stopped: {error}", file=sys.stderr, flush=True)
    try:
        serve(FirstLegal)
    except Exception as error:
        print(f"socket-folder-fill: cannot serve: {error}", file=sys.stderr, flush=True)
        time.sleep(60)
