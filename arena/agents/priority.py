"""The arena yields the CPU to its bots: it runs at a lower priority than theirs.

On a busy host a bot that holds a request competes for the CPU with the arena's own work
(encoding, gRPC, the other matches of the same event loop). The fair clock leaves the event
loop's lag out of what a bot is charged (``arena.agents.loopclock``), but not the time a bot
waits for a core the arena is using. So, once a process runs matches with bots, it lowers its
priority by ``CARDARENA_ARENA_NICE`` (10 by default; 0 leaves it alone) while the bots it starts
keep the first one: a bot with a request runs before the arena's work, which the clock does
not charge anyway. Two knobs of Linux's scheduler, because either may be the one in force:

- the nice value of every thread of the process. Nice values weigh threads against each other
  within one scheduling group. A nice value belongs to a thread, is inherited by what the
  thread starts (threads and forked processes), and an unprivileged process cannot lower it
  again; so bot processes are forked by one thread kept at the first value
  (``run_at_bot_priority``), and threads the arena starts later inherit its lowered one;
- the nice value of the process's *autogroup*, where the kernel groups processes by session
  (``/proc/sys/kernel/sched_autogroup_enabled``): there each session weighs the same whatever
  its threads' nice values, and every bot has a session of its own. The arena gives its
  autogroup the nice value ``CARDARENA_ARENA_NICE`` (never raising it). A process that leads
  neither its session nor its process group (a pool worker, a Celery child) first takes a
  session of its own, so that it lowers itself alone; one started from a shell shares its
  session's autogroup with the shell's other processes, which share the lowered weight until
  the arena exits and puts the first value back (if it is still the one it set).

In a process forked after the lowering (a pool worker), the spawner thread is started anew
at that process's lowered thread priority, and the threads go a step lower still (up to 19).
Containers are started by the Docker daemon and are not affected.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

NICE_ENV = "CARDARENA_ARENA_NICE"
"""The environment variable giving how much lower than its bots the arena runs (0 to 19)."""

DEFAULT_NICE = 10
"""How much lower than its bots the arena runs by default (a nice-0 bot gets about ten times
the CPU of a busy arena thread on the same core)."""

MAX_NICE = 19
"""The highest nice value Linux has."""

AUTOGROUP = Path("/proc/self/autogroup")
"""This process's autogroup and its nice value (``/autogroup-42 nice 0``)."""

AUTOGROUP_ENABLED = Path("/proc/sys/kernel/sched_autogroup_enabled")
"""1 when the kernel groups processes by session for the CPU."""

T = TypeVar("T")


class PriorityError(ValueError):
    """``CARDARENA_ARENA_NICE`` is not a whole number from 0 to 19."""


def arena_nice() -> int:
    """How much lower than its bots the arena runs, from ``CARDARENA_ARENA_NICE``."""
    text = os.environ.get(NICE_ENV, "").strip()
    if not text:
        return DEFAULT_NICE
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_NICE:
        raise PriorityError(f"{NICE_ENV} must be a whole number from 0 to {MAX_NICE} "
                            f"(how much lower than its bots the arena runs), not {text!r}")
    return value


class _Spawner:
    """One daemon thread kept at the process's first priority, that starts the bots.

    A daemon thread, so that it lasts until the process itself ends: the bots it starts die
    with it (``PR_SET_PDEATHSIG``), and the threads an executor keeps end early in the
    interpreter's shutdown, before the handlers that stop bots gracefully at exit."""

    def __init__(self) -> None:
        """Start the thread now, before anything lowers the priority it inherits."""
        self.pid = os.getpid()
        self.lowered = False
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = (
            queue.SimpleQueue())
        started: Future[int] = Future()
        thread = threading.Thread(target=self._serve, args=(started,),
                                  name="cardarena-spawn", daemon=True)
        thread.start()
        self.thread_id = started.result()

    def _serve(self, started: Future[int]) -> None:
        """Run the jobs handed in, one at a time, for the life of the process."""
        started.set_result(threading.get_native_id())
        while True:
            job, done = self._jobs.get()
            if not done.set_running_or_notify_cancel():
                continue
            try:
                done.set_result(job())
            except BaseException as error:  # handed to the caller, who raises it
                done.set_exception(error)

    def submit(self, job: Callable[[], T]) -> Future[T]:
        """Run ``job`` in the thread; its future."""
        done: Future[T] = Future()
        self._jobs.put((job, done))
        return done


_LOCK = threading.Lock()
_SPAWNER: _Spawner | None = None


def _spawner() -> _Spawner:
    """This process's spawner (a new one after a fork: threads do not survive it)."""
    global _SPAWNER
    with _LOCK:
        if _SPAWNER is None or _SPAWNER.pid != os.getpid():
            _SPAWNER = _Spawner()
        return _SPAWNER


def thread_nice(thread_id: int) -> int:
    """The nice value of one thread of this process (Linux: ``/proc/self/task``)."""
    return os.getpriority(os.PRIO_PROCESS, thread_id)


def yield_cpu_to_bots() -> int:
    """Lower every thread of this process but the spawner by ``arena_nice()`` (once per
    process); the step applied (0 when already done, turned off or not allowed)."""
    spawner = _spawner()
    step = arena_nice()
    with _LOCK:
        if spawner.lowered or step == 0:
            return 0
        spawner.lowered = True
        _lower_autogroup(step)
        for task in _threads():
            if task == spawner.thread_id:
                continue
            try:
                now = thread_nice(task)
                os.setpriority(os.PRIO_PROCESS, task, min(MAX_NICE, now + step))
            except OSError:
                continue  # the thread has ended, or the system does not allow it
        return step


def autogroup_nice() -> int | None:
    """The nice value of this process's autogroup; None where the kernel groups none."""
    try:
        if AUTOGROUP_ENABLED.read_text().strip() != "1":
            return None
        return int(AUTOGROUP.read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def _lower_autogroup(step: int) -> None:
    """Give this process's autogroup the nice value ``step`` (never a higher priority than it
    has); a process that leads neither its session nor its process group (a pool worker)
    first takes a session of its own, so that it lowers only itself."""
    if autogroup_nice() is None:
        return
    pid = os.getpid()
    if os.getsid(0) != pid and os.getpgid(0) != pid:
        with contextlib.suppress(OSError):
            os.setsid()
    first = autogroup_nice()
    if first is None or first >= step:
        return
    try:
        AUTOGROUP.write_text(str(step))
    except OSError:
        return
    if os.getsid(0) != pid:
        atexit.register(_restore_autogroup, pid, first, step)


def _restore_autogroup(pid: int, first: int, lowered: int) -> None:
    """At exit: the autogroup's first nice value back, unless someone changed it since."""
    if os.getpid() != pid or autogroup_nice() != lowered:
        return
    with contextlib.suppress(OSError):
        AUTOGROUP.write_text(str(first))


def _threads() -> list[int]:
    """The ids of this process's threads."""
    try:
        return [int(entry.name) for entry in Path("/proc/self/task").iterdir()]
    except OSError:
        return [threading.get_native_id()]


def run_at_bot_priority(start: Callable[[], T]) -> T:
    """``start()`` run by the spawner thread (at the process's first priority), its result
    or its exception."""
    spawner = _spawner()
    if threading.get_native_id() == spawner.thread_id:
        return start()
    return spawner.submit(start).result()
