"""The labels the sandbox puts on what it creates, so the janitor can find leftovers."""

from __future__ import annotations

import os
import socket
from pathlib import Path

SANDBOX = "cardarena.sandbox"
"""On every container and image the sandbox creates; value ``1``."""

BOT_NAME = "cardarena.bot.name"
BOT_VERSION = "cardarena.bot.version"
BOT_LANGUAGE = "cardarena.bot.language"
"""The language of a bot image's bot, from its manifest."""
BOT_GAMES = "cardarena.bot.games"
"""The games a bot image plays: its manifest's list, comma-joined (``*`` for all)."""

ARENA_HOST = "cardarena.arena.host"
"""The host name of the arena that started a container."""

ARENA_PID = "cardarena.arena.pid"
"""The process id of the arena that started a container (gone: the container is a leftover)."""

ARENA_STARTED = "cardarena.arena.started"
"""When that arena process started (the kernel's start time of the pid, in clock ticks since
boot): another process that took the pid since is not the arena."""

SOCKET_DIR = "cardarena.socket.dir"
"""The host folder holding the container's socket, removed with it."""


def process_started(pid: int) -> str | None:
    """The start time of a process (field 22 of ``/proc/<pid>/stat``), None if it is gone or
    the system has no ``/proc``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def arena_labels() -> dict[str, str]:
    """The labels naming this arena process: host, pid and start time."""
    pid = os.getpid()
    return {ARENA_HOST: socket.gethostname(), ARENA_PID: str(pid),
            ARENA_STARTED: process_started(pid) or ""}
