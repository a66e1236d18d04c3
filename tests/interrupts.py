"""Programs that the tests interrupt: with Ctrl-C (SIGINT), or ``arena play`` with SIGTERM."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

ARENA = Path(sysconfig.get_path("scripts")) / "arena"
"""The ``arena`` program of this environment."""


def default_sigint() -> None:
    """Run in the child before it starts: SIGINT back to its default action. A shell makes the
    commands it starts in the background ignore SIGINT, and children inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def arena_play(*args: str, temp_root: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``arena play ARGS`` running, ``temp_root`` its TMPDIR and its output kept apart (for
    ``output_of``); killed at the end if it still runs."""
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen([str(ARENA), "play", *args],
                                   env={**os.environ, "TMPDIR": str(temp_root)},
                                   stdout=output, stderr=subprocess.STDOUT)
        _OUTPUTS[process.pid] = output
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            del _OUTPUTS[process.pid]


_OUTPUTS: dict[int, IO[bytes]] = {}
"""The output file of each running ``arena_play`` program, by pid."""


def output_of(process: subprocess.Popen[bytes]) -> str:
    """What an ``arena_play`` program printed so far, its exit status first, for a failure's
    message."""
    output = _OUTPUTS[process.pid]
    output.seek(0)
    return f"exit status {process.poll()}; output:\n" + output.read().decode(errors="replace")


def wait_while_running(process: subprocess.Popen[bytes], done: Callable[[], bool],
                       timeout_s: float = 60) -> None:
    """Poll ``done`` until it holds, the process has exited or ``timeout_s`` has passed."""
    deadline = time.monotonic() + timeout_s
    while not done() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
