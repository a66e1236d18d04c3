"""Exhausts file descriptors: its 2nd decision opens files until refused and tries to raise
its limit, reports both, closes what it opened and plays on.

It refuses to start outside the arena's container.
"""

from __future__ import annotations

import errno
import os
import resource
import sys

from cardarena_sdk import Bot, Request, serve

SANDBOX_ADDRESS = "unix:/run/cardarena/agent.sock"
MOST = 1_000_000


def require_sandbox() -> None:
    """Exit unless this runs in a container at the sandbox's socket address."""
    if not os.path.exists("/.dockerenv") or os.environ.get("CARDARENA_ADDRESS") != SANDBOX_ADDRESS:
        sys.exit("fd-exhaustion: refusing to run outside the Card Arena sandbox")


def report(probe: str, escaped: bool, detail: str) -> None:
    """One line on stderr: the probe, ``blocked`` or ``ESCAPED``, and what happened."""
    verdict = "ESCAPED" if escaped else "blocked"
    print(f"probe {probe}: {verdict} ({detail})", file=sys.stderr, flush=True)


def exhaust() -> None:
    """Open /dev/null until refused, then close every one opened."""
    opened: list[int] = []
    try:
        while len(opened) < MOST:
            opened.append(os.open("/dev/null", os.O_RDONLY))
    except OSError as error:
        name = errno.errorcode.get(error.errno or 0, type(error).__name__)
        report("fd-open", False, f"{name} after {len(opened)} more files")
    else:
        report("fd-open", True, f"opened {len(opened)} files")
    finally:
        for fd in opened:
            os.close(fd)


def raise_limit() -> None:
    """Try to lift the hard limit on open files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard * 4, hard * 4))
    except (OSError, ValueError) as error:
        report("fd-raise", False, f"limit {soft}/{hard}: {type(error).__name__}: {error}")
    else:
        report("fd-raise", True, f"limit raised from {hard} to {hard * 4}")


class Exhausting(Bot):
    """The first legal action, with descriptors exhausted at the 2nd decision."""

    name = "fd-exhaustion"

    def __init__(self) -> None:
        """No decisions yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """The first legal action (after the exhaustion, the 2nd time)."""
        self.decisions += 1
        if self.decisions == 2:
            exhaust()
            raise_limit()
        return request.legal_ids[0]


if __name__ == "__main__":
    require_sandbox()
    serve(Exhausting)
