"""Burns CPU between decisions: three child processes and a thread spin from start to end
(at nice 19, so its own answers are not starved inside its quota: the attack is on the
opponent and the host), while the bot answers every decision at once and reports, with each,
how many CPUs its container's processes used since the burning began (from /proc, which
shows only them).

It refuses to start outside the arena's container.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import NoReturn

from cardarena_sdk import Bot, Request, serve

SANDBOX_ADDRESS = "unix:/run/cardarena/agent.sock"
CHILDREN = 3
TICKS = os.sysconf("SC_CLK_TCK")


def require_sandbox() -> None:
    """Exit unless this runs in a container at the sandbox's socket address."""
    if not os.path.exists("/.dockerenv") or os.environ.get("CARDARENA_ADDRESS") != SANDBOX_ADDRESS:
        sys.exit("cpu-burner: refusing to run outside the Card Arena sandbox")


def cpu_seconds() -> float:
    """The CPU time (user and system) of every process this container shows in /proc."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            ticks += int(fields[11]) + int(fields[12])
    return ticks / TICKS


def spin() -> NoReturn:
    """Use all the CPU it is given, forever, at the lowest priority (nice 19) so that within
    the container's quota the bot's own answering thread still runs when it has work."""
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    while True:
        pass


def burn() -> tuple[float, float]:
    """Start the spinning children (before any thread exists) and a spinning thread; the
    wall-clock time and CPU time when they started."""
    start = (time.monotonic(), cpu_seconds())
    for _ in range(CHILDREN):
        if os.fork() == 0:
            spin()
    threading.Thread(target=spin, daemon=True).start()
    print(f"cpu-burner: {CHILDREN} processes and a thread spinning", file=sys.stderr, flush=True)
    return start


class Reporting(Bot):
    """The first legal action, at once, with the CPUs used so far on stderr."""

    name = "cpu-burner"

    def __init__(self, start: tuple[float, float]) -> None:
        """Keep when the burning started."""
        self.wall, self.cpu = start

    def act(self, request: Request) -> int:
        """Report the CPUs used since the start; the first legal action."""
        wall = time.monotonic() - self.wall
        used = (cpu_seconds() - self.cpu) / wall
        print(f"cpu-burner: {used:.2f} CPUs used over {wall:.2f} s", file=sys.stderr, flush=True)
        return request.legal_ids[0]


if __name__ == "__main__":
    require_sandbox()
    started = burn()
    serve(Reporting(started))
