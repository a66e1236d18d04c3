"""A tiny size-capped file system for a seat's socket folder: a ``tmpfs`` of one page and two
inodes (its root and the bot's socket), so nothing a bot writes there, named or not, can take
more than one page of the host.

The arena mounts it (``mount(2)``, which needs root or ``CAP_SYS_ADMIN``) on the folder it
bind-mounts into the container, before the container exists, and unmounts it after the
container is gone. A file the bot opens there, whether it has a name, was unlinked while open
or was made with ``O_TMPFILE``, and however it is written (densely, sparsely, ``fallocate``),
fails with ``ENOSPC`` after one page, and while the socket exists no file can be made at all.
A hard link cannot reach across file systems. The pages are charged to the writer's memory
cgroup, the bot's container.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import tempfile
from pathlib import Path

FS_SOURCE = "cardarena-sock"
"""The source name of every socket-folder mount (as ``mount`` and ``/proc/mounts`` show it)."""

CAP_INODES = 2
"""Inodes of the file system: its root folder and the bot's socket."""

MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x2, 0x4, 0x8
MNT_DETACH, UMOUNT_NOFOLLOW = 0x2, 0x8


def cap_bytes() -> int:
    """The file system's size: one page (tmpfs reads a size of 0 as unlimited)."""
    return os.sysconf("SC_PAGE_SIZE")


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library, with ``errno`` kept for each call."""
    return ctypes.CDLL(None, use_errno=True)


def _raise_errno(what: str, path: Path) -> None:
    """Raise the OSError of the last failed call."""
    number = ctypes.get_errno()
    raise OSError(number, f"{what}: {os.strerror(number)}", str(path))


def mount_capped(path: Path, uid: int, gid: int, mode: int) -> None:
    """Mount the capped ``tmpfs`` on the folder ``path``, owned by ``uid:gid`` with ``mode``
    (``nosuid``, ``nodev``, ``noexec``); OSError when the arena may not mount."""
    options = (f"size={cap_bytes()},nr_inodes={CAP_INODES},mode={mode:o},uid={uid},gid={gid}")
    if _libc().mount(FS_SOURCE.encode(), os.fsencode(path), b"tmpfs",
                     MS_NOSUID | MS_NODEV | MS_NOEXEC, options.encode()) != 0:
        _raise_errno("cannot mount a size-capped file system", path)


def unmount(path: Path) -> None:
    """Detach the file system mounted on ``path`` (never following a link); nothing when no
    file system of ours is mounted there."""
    if not is_capped(path):
        return
    if _libc().umount2(os.fsencode(path), MNT_DETACH | UMOUNT_NOFOLLOW) != 0:
        _raise_errno("cannot unmount the socket folder", path)


def is_capped(path: Path) -> bool:
    """True when ``path`` is the mount point of a socket-folder file system."""
    target = os.fsencode(os.path.abspath(path))
    try:
        with open("/proc/self/mounts", "rb") as mounts:
            for line in mounts:
                fields = line.split()
                if (len(fields) > 2 and fields[0] == FS_SOURCE.encode()
                        and _unescape(fields[1]) == target):
                    return True
    except OSError:
        return False
    return False


def _unescape(field: bytes) -> bytes:
    """A path of ``/proc/mounts``, whose spaces, tabs, newlines and backslashes are octal."""
    for code in (b"\\040", b"\\011", b"\\012", b"\\134"):
        field = field.replace(code, bytes([int(code[1:], 8)]))
    return field


@functools.cache
def unavailable() -> str:
    """Why this arena cannot cap socket folders (a trial mount failed), or ``""`` when it can."""
    trial = Path(tempfile.mkdtemp(prefix="cat-trial-"))
    try:
        mount_capped(trial, os.geteuid(), os.getegid(), 0o700)
    except OSError as error:
        hint = "" if os.geteuid() == 0 else "; the arena must run as root"
        return f"cannot mount a size-capped socket folder ({error.strerror}){hint}"
    else:
        unmount(trial)
        return ""
    finally:
        shutil.rmtree(trial, ignore_errors=True)
