"""Start slots: at most one bot container starting per core of the host, across processes.

A container's start (its runtime loading, the bot importing its libraries until it listens)
is timed against the bot's start-up limit. Started all at once by several league workers, a
dozen containers would share two cores and each take many times its own time: the arena's
load charged to the bots. Each start therefore holds a slot from before Docker creates the
container until the bot listens (or fails). A slot is an exclusive ``flock`` on one of
``cores`` files in a folder per user under ``/tmp``; the kernel releases it
when its holder closes it or dies, so a killed arena never leaves a slot taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path

from arena.sandbox.errors import SandboxError

SLOTS_ROOT = Path("/tmp")
"""Where the slots' folder lives: one place for the whole host."""

POLL_S = 0.02
"""How often a start waiting for a slot tries again."""


def slot_count() -> int:
    """One slot per core of this machine (``CARDARENA_START_SLOTS`` overrides it)."""
    configured = os.environ.get("CARDARENA_START_SLOTS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return os.cpu_count() or 1


def slot_folder() -> Path:
    """The folder of the slot files, private to this user and the same for every process of
    the host (whatever its ``TMPDIR``); a SandboxError when someone else made it."""
    folder = SLOTS_ROOT / f"cardarena-start-slots-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise SandboxError(f"the start slots' folder {folder} is not a private folder of this "
                           "user; remove it")
    return folder


def try_take(folder: Path, count: int) -> int | None:
    """An open descriptor holding a free slot, or None when all ``count`` are taken."""
    for index in range(count):
        fd = os.open(folder / f"slot-{index}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return fd
    return None


@contextlib.asynccontextmanager
async def start_slot(folder: Path, count: int | None = None) -> AsyncIterator[None]:
    """Hold one of the start slots in ``folder`` for the body (waiting, without blocking the
    loop, until one is free)."""
    total = count or slot_count()
    while (fd := try_take(folder, total)) is None:
        await asyncio.sleep(POLL_S)
    try:
        yield
    finally:
        os.close(fd)
