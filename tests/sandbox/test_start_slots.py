"""Start slots: one container start per slot across processes; a dead holder frees its slot."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox.errors import SandboxError
from arena.sandbox.startslots import slot_count, slot_folder, start_slot, try_take

HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A private slot folder for the test."""
    return tmp_path


def hold_in_other_process(path: Path) -> subprocess.Popen[str]:
    """Another process holding ``path``'s lock, once it says so."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_a_slot_held_by_another_process_is_not_taken(folder: Path) -> None:
    """With one slot held elsewhere, the next free one is taken; with all held, none."""
    holder = hold_in_other_process(folder / "slot-0")
    try:
        fd = try_take(folder, 2)
        assert fd is not None
        try:
            assert try_take(folder, 2) is None
        finally:
            os.close(fd)
    finally:
        holder.kill()
        holder.wait()


def test_a_start_waits_until_the_holder_dies(folder: Path) -> None:
    """A start waits while the only slot is held by another process, and takes it as soon as
    that process is killed (the kernel frees the lock)."""
    holder = hold_in_other_process(folder / "slot-0")
    order: list[str] = []

    async def start() -> None:
        async with start_slot(folder, 1):
            order.append("started")

    async def kill_later() -> None:
        await asyncio.sleep(0.2)
        assert order == []
        order.append("killed")
        holder.send_signal(signal.SIGKILL)
        await asyncio.to_thread(holder.wait)

    async def both() -> None:
        await asyncio.gather(start(), kill_later())

    asyncio.run(both())
    assert order == ["killed", "started"]


def test_starts_in_one_process_share_the_slots(folder: Path) -> None:
    """Three starts with two slots: never more than two inside at once, all three run."""
    inside = 0
    most = 0
    done = 0

    async def start() -> None:
        nonlocal inside, most, done
        async with start_slot(folder, 2):
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.05)
            inside -= 1
            done += 1

    async def all_three() -> None:
        await asyncio.gather(start(), start(), start())

    asyncio.run(all_three())
    assert (most, done) == (2, 3)


def test_the_count_follows_the_cores_unless_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    """One slot per core by default; CARDARENA_START_SLOTS sets another positive count."""
    monkeypatch.delenv("CARDARENA_START_SLOTS", raising=False)
    assert slot_count() == (os.cpu_count() or 1)
    monkeypatch.setenv("CARDARENA_START_SLOTS", "5")
    assert slot_count() == 5
    monkeypatch.setenv("CARDARENA_START_SLOTS", "0")
    assert slot_count() == (os.cpu_count() or 1)


def test_the_folder_is_private_and_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder is one place whatever TMPDIR says, made private; a folder another user
    could write is refused with one line naming it."""
    monkeypatch.setattr("arena.sandbox.startslots.SLOTS_ROOT", tmp_path)
    monkeypatch.setenv("TMPDIR", "/nonexistent")
    folder = slot_folder()
    assert folder.parent == tmp_path and folder.stat().st_mode & 0o777 == 0o700
    folder.chmod(0o777)
    with pytest.raises(SandboxError, match="not a private folder of this user"):
        slot_folder()
