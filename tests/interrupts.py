"""Programs that the tests interrupt: with Ctrl-C (SIGINT), or ``arena play`` with SIGTERM."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sysconfig
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ARENA = Path(sysconfig.get_path("scripts")) / "arena"
"""The ``arena`` program of this environment."""


def default_sigint() -> None:
    """Run in the child before it starts: SIGINT back to its default action. A shell makes the
    commands it starts in the background ignore SIGINT, and children inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def arena_play(*args: str, temp_root: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``arena play ARGS`` running, ``temp_root`` its TMPDIR and its output discarded; killed
    at the end if it still runs."""
    process = subprocess.Popen([str(ARENA), "play", *args],
                               env={**os.environ, "TMPDIR": str(temp_root)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def wait_while_running(process: subprocess.Popen[bytes], done: Callable[[], bool],
                       timeout_s: float = 60) -> None:
    """Poll ``done`` until it holds, the process has exited or ``timeout_s`` has passed."""
    deadline = time.monotonic() + timeout_s
    while not done() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
