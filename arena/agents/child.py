"""A bot's process started at the bots' priority, awaited from the arena's event loop.

``asyncio.create_subprocess_exec`` forks in the event loop's thread, whose priority the arena
lowers (``arena.agents.priority``); ``start_child`` forks in the spawner thread instead and
gives the same handle the arena uses of asyncio's: ``pid``, ``returncode``, ``stdout`` (a
``StreamReader`` of the merged output), ``terminate()``, ``kill()`` and ``wait()``. The exit
is noticed through a pidfd on the loop (a waiting thread where Linux has none).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from arena.agents.priority import run_at_bot_priority


class ChildProcess:
    """A started child: its pid, its merged output and its exit, on one event loop."""

    def __init__(self, popen: subprocess.Popen[bytes], stdout: asyncio.StreamReader | None,
                 loop: asyncio.AbstractEventLoop) -> None:
        """Watch ``popen`` (already started) for its exit on ``loop``."""
        self._popen = popen
        self.stdout = stdout
        self.pid = popen.pid
        self._exited: asyncio.Future[int] = loop.create_future()
        self._pidfd: int | None = None
        try:
            self._pidfd = os.pidfd_open(popen.pid)
        except (AttributeError, OSError):
            waiting = loop.run_in_executor(None, popen.wait)
            waiting.add_done_callback(lambda done: self._settle())
        else:
            loop.add_reader(self._pidfd, self._on_exit_ready, loop)

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: the signal), None while it runs."""
        return self._popen.returncode

    def poll(self) -> int | None:
        """Reap the child if it has exited, without the loop (from a signal handler); its
        exit status, None while it runs."""
        return self._popen.poll()

    def _on_exit_ready(self, loop: asyncio.AbstractEventLoop) -> None:
        """The pidfd became readable: the child has exited; reap it."""
        if self._popen.poll() is None:
            return
        if self._pidfd is not None:
            loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        self._settle()

    def _settle(self) -> None:
        """Resolve ``wait`` with the exit status."""
        if not self._exited.done() and self._popen.returncode is not None:
            self._exited.set_result(self._popen.returncode)

    def terminate(self) -> None:
        """SIGTERM to the child (not its group), unless it has exited."""
        if self._popen.returncode is None:
            self._popen.terminate()

    def kill(self) -> None:
        """SIGKILL to the child (not its group), unless it has exited."""
        if self._popen.returncode is None:
            self._popen.kill()

    async def wait(self) -> int:
        """The exit status, once the child has exited."""
        return await asyncio.shield(self._exited)


async def start_child(argv: Sequence[str], cwd: Path, env: Mapping[str, str],
                      preexec_fn: Callable[[], None] | None = None) -> ChildProcess:
    """Start ``argv`` at the bots' priority in a session of its own, stdin from /dev/null and
    stdout and stderr merged into one pipe; raise ``OSError`` when it cannot be run."""
    loop = asyncio.get_running_loop()
    popen = run_at_bot_priority(lambda: subprocess.Popen(
        list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=preexec_fn))
    reader = asyncio.StreamReader()
    stdout = popen.stdout
    if stdout is None:
        return ChildProcess(popen, None, loop)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdout)
    except BaseException:
        with contextlib.suppress(OSError):
            os.killpg(popen.pid, signal.SIGKILL)
        stdout.close()
        raise
    return ChildProcess(popen, reader, loop)
