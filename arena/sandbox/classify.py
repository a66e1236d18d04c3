"""How a container ended, read from its state (``OOMKilled``, exit code, signal), as a reason
code and one line of text.

With ``--init`` the container's init passes on the bot's end: an exit status as itself, a
death by signal N as ``128 + N``. A status from the process backend is negative for a signal;
``exit_status`` gives the same here.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Any

from arena.reasons import Reason
from arena.sandbox.limits import MIB

SIGNAL_BASE = 128
"""Exit codes above this mean death by signal ``code - 128``."""


@dataclass(frozen=True)
class ContainerEnd:
    """A stopped container's end: its exit status (negative for a signal), OOM, the text."""

    status: int
    oom: bool
    detail: str


def exit_status(code: int) -> int:
    """An exit code as the process backend gives it: ``-N`` for signal N, else the code."""
    return -(code - SIGNAL_BASE) if SIGNAL_BASE < code < SIGNAL_BASE + 65 else code


def exit_text(status: int) -> str:
    """``with status 3`` or ``on signal 9 (SIGKILL)`` (as the process backend words it)."""
    if status >= 0:
        return f"with status {status}"
    try:
        name = signal.Signals(-status).name
    except ValueError:
        return f"on signal {-status}"
    return f"on signal {-status} ({name})"


def memory_text(memory_bytes: int) -> str:
    """``512 MiB`` (or bytes when not a whole number of MiB)."""
    if memory_bytes % MIB == 0:
        return f"{memory_bytes // MIB} MiB"
    return f"{memory_bytes} bytes"


def container_end(state: dict[str, Any], memory_bytes: int) -> ContainerEnd | None:
    """The end of a container from its ``State`` (``container.attrs["State"]``); None while
    it still runs."""
    if state.get("Running") or state.get("Restarting") or state.get("Paused"):
        return None
    status_name = state.get("Status", "")
    if status_name in ("created", "running", "paused", "restarting"):
        return None
    status = exit_status(int(state.get("ExitCode", 0) or 0))
    if state.get("OOMKilled"):
        return ContainerEnd(status, True, f"the bot was killed: out of memory "
                                          f"(limit {memory_text(memory_bytes)})")
    error = " ".join(str(state.get("Error", "") or "").split())
    if error:
        return ContainerEnd(status, False, f"the container failed to run: {error}")
    return ContainerEnd(status, False, f"the bot exited {exit_text(status)}")


def classify(state: dict[str, Any], memory_bytes: int, starting: bool = False,
             ) -> tuple[Reason, str] | None:
    """The reason code and text of a stopped container: ``OOM`` when killed for memory, else
    ``INIT_ERROR`` while starting and ``CRASH`` once playing; None while it runs."""
    end = container_end(state, memory_bytes)
    if end is None:
        return None
    if end.oom:
        return Reason.OOM, end.detail
    if starting:
        return Reason.INIT_ERROR, f"{end.detail} before listening on its socket"
    return Reason.CRASH, end.detail
