"""Nothing the arena starts outlives it: workers, bots and containers die with their parent.

Three mechanisms, each covering what the others miss:

- ``die_with_parent()``, called first thing in a spawned worker process (a league pool
  worker, a Celery worker process): ``PR_SET_PDEATHSIG`` makes the kernel send SIGKILL when
  the thread that started the worker ends, and a thread watches multiprocessing's parent
  sentinel (a pipe whose other end only the parent holds) and kills the worker when it closes:
  that covers a parent gone before the ``prctl`` took effect, and ties the worker to the parent
  *process*, not only to the thread that started it.
- ``pdeathsig_preexec()``, run in a bot's process between fork and exec: SIGKILL when the thread
  that started the bot (the event loop's) ends; a parent already gone is noticed at once.
- ``lifeline()``: one reaper process per arena process (``arena.sandbox.reaper``), in a session
  of its own, reading a pipe from the arena. The arena tells it of each bot's process group and
  folder, and of each container (by name, before it is created) and socket folder, as it makes
  them, and tells it again as it removes them. When the arena ends, however it ends (``kill -9``
  included), the pipe closes and the reaper kills the groups still listed and every process
  carrying the arena's marker (``CARDARENA_LIFELINE``, in every bot's environment, so that a
  grandchild in a session of its own is found too), removes the containers and the folders,
  and exits.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import multiprocessing
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import wait
from pathlib import Path

LIFELINE_ENV = "CARDARENA_LIFELINE"
"""The variable that marks every bot process (and its descendants) with its arena's token."""

REAPER_MODULE = "arena.sandbox.reaper"

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal this process gets when the thread that started it ends."""

GROUP, FOLDER, CONTAINER, SOCKET_DIR = "group", "folder", "container", "socketdir"
"""The kinds of thing the reaper is told of, one line each: ``+KIND VALUE`` or ``-KIND VALUE``:
a bot's process group (its leader's pid), a bot's folder, a container's name, a seat's socket
folder (removed after the containers, unmounting its capped file system)."""


NAME_TRIES = 100
"""Random names ``new_folder`` tries before it gives up."""


class LifelineError(OSError):
    """The reaper could not be started or told: nothing would be cleaned up after a crash."""


LINUX = sys.platform.startswith("linux")
"""``prctl`` exists only there; elsewhere the parent's pipe and the reaper remain."""


@functools.cache
def _prctl() -> Callable[..., int]:
    """libc's ``prctl``, resolved now (never between fork and exec)."""
    libc = ctypes.CDLL(None, use_errno=True)
    function: Callable[..., int] = libc.prctl
    return function


def set_pdeathsig(signum: int = signal.SIGKILL) -> None:
    """Have the kernel send ``signum`` to this process when the thread that started it ends
    (nothing off Linux)."""
    if not LINUX:
        return
    if _prctl()(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl(PR_SET_PDEATHSIG): {os.strerror(error)}")


def _kill_self() -> None:
    """End this process at once (SIGKILL: its reapers clean up after it)."""
    os.kill(os.getpid(), signal.SIGKILL)


def die_with_parent() -> None:
    """In a process spawned by ``multiprocessing``: die (SIGKILL) when the parent does, by
    ``PR_SET_PDEATHSIG`` and by a thread watching the parent's sentinel pipe (a no-op in a
    process that multiprocessing did not start)."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.pid is None:
        return
    set_pdeathsig(signal.SIGKILL)
    if os.getppid() != parent.pid:
        _kill_self()
    sentinel = parent.sentinel
    threading.Thread(target=_watch_sentinel, args=(sentinel,), name="lifeline",
                     daemon=True).start()


def _watch_sentinel(sentinel: int) -> None:
    """Wait until the parent's end of the pipe closes, then end this process."""
    with contextlib.suppress(OSError, ValueError):
        wait([sentinel])
    _kill_self()


def pdeathsig_preexec() -> Callable[[], None] | None:
    """A ``preexec_fn`` for a child that must die (SIGKILL) with the thread starting it now;
    everything it needs is resolved here, before the fork (None off Linux)."""
    if not LINUX:
        return None
    prctl = _prctl()
    parent = os.getpid()
    kill, getppid, getpid, sigkill = os.kill, os.getppid, os.getpid, int(signal.SIGKILL)

    def preexec() -> None:
        """Between fork and exec: ask for SIGKILL at the parent's end; the parent may already
        be gone."""
        prctl(PR_SET_PDEATHSIG, sigkill, 0, 0, 0)
        if getppid() != parent:
            kill(getpid(), sigkill)

    return preexec


class Lifeline:
    """This process's reaper: told of every bot group, folder and container it starts, so that
    they are removed when this process ends, however it ends."""

    def __init__(self) -> None:
        """A lifeline with a fresh token; the reaper starts on first use."""
        self.token = secrets.token_hex(12)
        self._lock = threading.Lock()
        self._reaper: subprocess.Popen[bytes] | None = None
        self._live: dict[tuple[str, str], None] = {}

    @property
    def reaper_pid(self) -> int | None:
        """The reaper's process id (None before it started)."""
        return None if self._reaper is None else self._reaper.pid

    def environment(self) -> dict[str, str]:
        """The marker to put in a bot's environment (the reaper is started now if need be)."""
        with self._lock:
            if not self._alive():
                self._start()
        return {LIFELINE_ENV: self.token}

    def track(self, kind: str, value: str | Path | int) -> None:
        """Tell the reaper of a group, folder or container about to exist (or just made)."""
        self._send("+", kind, str(value))

    def new_folder(self, kind: str, prefix: str, root: Path) -> Path:
        """A fresh private folder ``root/prefixXXXXXXXXXX``, told to the reaper before it is
        made, so that no kill between making it and telling of it can leave it behind."""
        for _ in range(NAME_TRIES):
            path = root / f"{prefix}{secrets.token_hex(5)}"
            self.track(kind, path)
            try:
                path.mkdir(mode=0o700)
            except FileExistsError:
                self.forget(kind, path)
                continue
            except OSError:
                self.forget(kind, path)
                raise
            return path
        raise FileExistsError(f"no free folder name {prefix}... in {root}")

    def forget(self, kind: str, value: str | Path | int) -> None:
        """Tell the reaper that a group, folder or container is gone (stopped, removed); never
        raises (what is still live is told again to the next reaper that starts)."""
        with contextlib.suppress(OSError):
            self._send("-", kind, str(value))

    def _send(self, sign: str, kind: str, value: str) -> None:
        """Write one line to the reaper (a new reaper, told everything, if the last one died)."""
        if "\n" in value or not value:
            raise ValueError(f"not a {kind} the reaper can be told of: {value!r}")
        with self._lock:
            if sign == "+":
                self._live[(kind, value)] = None
            else:
                self._live.pop((kind, value), None)
            if self._alive():
                try:
                    self._write(f"{sign}{kind} {value}\n")
                    return
                except OSError:
                    pass
            self._start()

    def _alive(self) -> bool:
        """True while the reaper runs (lock held)."""
        return self._reaper is not None and self._reaper.poll() is None

    def _start(self) -> None:
        """Start a reaper and tell it everything now live (lock held)."""
        env = {key: value for key, value in os.environ.items() if key != LIFELINE_ENV}
        try:
            self._reaper = subprocess.Popen(
                [sys.executable, "-m", REAPER_MODULE, self.token], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/", env=env,
                start_new_session=True)
            self._write("".join(f"+{kind} {value}\n" for kind, value in self._live))
        except OSError as error:
            raise LifelineError(error.errno, f"cannot start the arena's reaper: "
                                             f"{error.strerror or error}") from None

    def _write(self, text: str) -> None:
        """Write and flush lines to the reaper's input."""
        reaper = self._reaper
        assert reaper is not None and reaper.stdin is not None
        reaper.stdin.write(text.encode())
        reaper.stdin.flush()


_LIFELINES: dict[int, Lifeline] = {}
_LIFELINES_LOCK = threading.Lock()


def lifeline() -> Lifeline:
    """This process's lifeline (one per process id, so a forked child gets its own)."""
    with _LIFELINES_LOCK:
        found = _LIFELINES.get(os.getpid())
        if found is None:
            found = _LIFELINES[os.getpid()] = Lifeline()
        return found


def reaper_pid() -> int | None:
    """The pid of this process's reaper, if one was started (none is started here)."""
    with _LIFELINES_LOCK:
        found = _LIFELINES.get(os.getpid())
    return None if found is None else found.reaper_pid
