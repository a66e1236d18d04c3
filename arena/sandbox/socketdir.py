"""The per-seat socket folder a container listens in, and a connection that never follows
a link the bot placed there.

The folder is fresh for each seat (``cat-XXXX/sock`` under a short temporary root): the outer
folder is the arena's (``0700``), the inner one, mounted into the container, belongs to the
arena and is writable by the bot only until its socket appears (group-writable for the bot's
gid when the arena is root, else open to all inside the private outer folder). Then the arena
locks it (no one but the arena may add, rename or remove an entry), checks that the socket is
the only entry, opens it with ``O_PATH | O_NOFOLLOW``, checks the open file is a socket owned
by the bot's uid, and connects through ``/proc/self/fd/<fd>``: the very file it checked. A bot
can neither swap the socket for a link afterwards nor use the host folder to store data.

When the arena may mount (as root), the inner folder is a file system of its own, one page and
two inodes large (``arena.sandbox.capfs``): nothing the bot writes there, even a file with no
name or one opened before the lock, takes more than one page of the host.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arena.sandbox import capfs
from arena.sandbox.limits import SOCKET_NAME

SOCKET_PREFIX = "cat-"
"""The prefix of a seat's temporary folder (short: socket paths are limited)."""

INNER = "sock"
"""The folder inside the temporary one that is mounted into the container."""

OPEN_TO_GROUP, OPEN_TO_ALL = 0o770, 0o777
"""The inner folder's mode until the socket appears (arena root, or not)."""

LOCKED = 0o755
"""The inner folder's mode once the socket is there: only the arena may change its entries."""


class SocketRefused(Exception):
    """The bot's socket is not one the arena will connect to (a link, a file, someone else's)."""


def default_root() -> Path:
    """The system temporary folder, or ``/tmp`` when that path is long."""
    root = Path(tempfile.gettempdir())
    return root if len(os.fsencode(root)) <= 40 else Path("/tmp")


@dataclass
class SocketDir:
    """A seat's socket folder: ``outer`` is private to the arena, ``path`` is mounted."""

    outer: Path
    path: Path
    fd: int | None = field(default=None, repr=False)
    capped: bool = False
    """True when the inner folder is a capped file system of its own (``capfs``)."""

    @classmethod
    def create(cls, uid: int, gid: int, root: Path | None = None,
               capped: bool = False, outer: Path | None = None) -> SocketDir:
        """A fresh folder whose inner ``sock`` folder the container's gid may write; with
        ``capped``, a size-capped file system (OSError when it cannot be mounted). ``outer``:
        the private folder, already made (``Lifeline.new_folder``), instead of a new one."""
        if outer is None:
            outer = Path(tempfile.mkdtemp(prefix=SOCKET_PREFIX, dir=root or default_root()))
        inner = outer / INNER
        try:
            inner.mkdir(mode=0o700)
            if capped:
                capfs.mount_capped(inner, os.geteuid(), gid, OPEN_TO_GROUP)
            elif os.geteuid() == 0:
                os.chown(inner, 0, gid)
                os.chmod(inner, OPEN_TO_GROUP)
            else:
                os.chmod(inner, OPEN_TO_ALL)
        except OSError:
            remove_tree(outer)
            raise
        return cls(outer, inner, capped=capped)

    @property
    def socket(self) -> Path:
        """Where the bot's socket appears on the host."""
        return self.path / SOCKET_NAME

    def present(self) -> bool:
        """True once something exists under the socket's name; ``SocketRefused`` as soon as
        anything else appears in the folder (a bot storing data on the host is stopped at once)."""
        entries = os.listdir(self.path)
        if any(entry != SOCKET_NAME for entry in entries):
            raise self._strays(entries)
        return bool(entries)

    def _strays(self, entries: list[str]) -> SocketRefused:
        """The refusal of a folder holding more than the socket."""
        strays = sorted(entry for entry in entries if entry != SOCKET_NAME)
        shown = ", ".join(strays[:5]) + (", ..." if len(strays) > 5 else "")
        return SocketRefused(f"the bot put files in its socket folder ({shown}), where only "
                             f"its socket belongs; refused")

    def lock(self) -> None:
        """Take the bot's right to change the folder; refuse when it holds more than a socket."""
        os.chmod(self.path, LOCKED)
        entries = os.listdir(self.path)
        if entries != [SOCKET_NAME]:
            raise self._strays(entries)

    def open_verified(self, uid: int) -> str:
        """Lock the folder, open the socket without following links, check it, and return the
        gRPC target ``unix:/proc/self/fd/<fd>`` (the fd stays open until ``close``); else
        SocketRefused."""
        self.close_fd()
        self.lock()
        try:
            fd = os.open(self.socket, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            raise SocketRefused("the bot removed its socket") from None
        try:
            info = os.fstat(fd)
            if stat.S_ISLNK(info.st_mode):
                raise SocketRefused("the bot replaced its socket with a symbolic link; refused")
            if not stat.S_ISSOCK(info.st_mode):
                raise SocketRefused(f"the bot put a {_kind(info.st_mode)} where its socket "
                                    "belongs; refused")
            if info.st_uid != uid:
                raise SocketRefused(f"the socket belongs to uid {info.st_uid}, not the bot's "
                                    f"uid {uid}; refused")
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        return f"unix:/proc/self/fd/{fd}"

    def close_fd(self) -> None:
        """Close the verified socket's fd, if open."""
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def remove(self) -> None:
        """Close the fd and remove the whole folder (links inside are removed, not followed)."""
        self.close_fd()
        remove_tree(self.outer)


def remove_tree(path: Path) -> None:
    """Remove a socket folder (unmounting its capped file system first); never follows a link
    inside it."""
    with contextlib.suppress(OSError):
        capfs.unmount(path / INNER)
    shutil.rmtree(path, ignore_errors=True)


def _kind(mode: int) -> str:
    """``directory``, ``regular file``, ... for a file mode."""
    kinds = {stat.S_ISDIR: "directory", stat.S_ISREG: "regular file", stat.S_ISFIFO: "FIFO",
             stat.S_ISCHR: "character device", stat.S_ISBLK: "block device"}
    for test, name in kinds.items():
        if test(mode):
            return name
    return "file of another kind"
