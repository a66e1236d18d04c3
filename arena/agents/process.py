"""The local-process agent: a bot folder's command, started here, reached over a Unix socket.

Each bot gets a fresh private temporary folder; the arena passes the socket address in
``CARDARENA_ADDRESS`` (``unix:<folder>/agent.sock``), waits until the bot listens under a
start-up deadline (noticing an early exit), and opens one Play stream per deal (``RemoteAgent``).
The bot runs in a session of its own, at the bots' priority (above the arena's own threads:
``arena.agents.priority``); ``shutdown`` stops the whole group (SIGTERM, then SIGKILL after a
grace period), removes the folder and keeps the last bytes of the bot's output. The bot dies
with the thread that started it, the process's spawner thread (``PR_SET_PDEATHSIG``), and its
group, folder and marked descendants are removed by this process's reaper if the arena dies
(``arena.sandbox.lifeline``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from arena.agents.base import AgentExit
from arena.agents.child import ChildProcess, start_child
from arena.agents.errors import AgentFailure, crash, init_error
from arena.agents.output import OUTPUT_CAP, OutputLog
from arena.agents.remote import (
    CLOSE_GRACE_S,
    EXIT_WAIT_S,
    MAX_MESSAGE_BYTES,
    FailureMaker,
    RemoteAgent,
    channel_options,
    connect_bot,
    exit_text,
)
from arena.agents.warm import pid_running, process_memory_bytes
from arena.bots import BotManifest
from arena.reasons import Reason
from arena.sandbox.lifeline import FOLDER, GROUP, lifeline, pdeathsig_preexec

__all__ = [
    "ADDRESS_ENV",
    "CLOSE_GRACE_S",
    "EXIT_WAIT_S",
    "MATCHES_AT_ONCE_ENV",
    "MAX_MESSAGE_BYTES",
    "SOCKET_NAME",
    "STOP_GRACE_S",
    "UNIX_PATH_MAX",
    "LocalProcessAgent",
    "channel_options",
    "exit_text",
    "listening_or_exited",
]

ADDRESS_ENV = "CARDARENA_ADDRESS"
"""The environment variable that gives a bot its listening address."""

MATCHES_AT_ONCE_ENV = "CARDARENA_MATCHES_AT_ONCE"
"""How many deals the arena may play with the process at once (its ``matches_at_once``)."""

SOCKET_NAME = "agent.sock"

UNIX_PATH_MAX = 107
"""The longest Unix socket path in bytes."""

STOP_GRACE_S = 2.0
"""Seconds a bot gets to exit after SIGTERM before SIGKILL."""

OUTPUT_READ = 64 * 1024
"""Bytes of the bot's output read at a time."""

OUTPUT_BURST = 4 * 1024 * 1024
"""Bytes of output read at once before the rate applies."""

OUTPUT_RATE = 8 * 1024 * 1024
"""Bytes a second of the bot's output read after a burst: a bot that floods its output fills
its pipe and waits on its own writes, instead of taking the arena's time from other seats."""


def _signal_group(pid: int, signum: int) -> None:
    """Send a signal to the bot's process group (its own session), if it still exists."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


async def listening_or_exited(listening: Awaitable[object], process: ChildProcess,
                              timeout_s: float) -> str:
    """Wait for ``listening`` or the process's exit: ``listening``, ``exited`` or ``timeout``."""
    ready = asyncio.ensure_future(listening)
    exited = asyncio.ensure_future(process.wait())
    try:
        done, _ = await asyncio.wait({ready, exited}, timeout=timeout_s,
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        ready.cancel()
        exited.cancel()
    if ready in done and not ready.cancelled():
        return "listening"
    return "exited" if exited in done else "timeout"


class LocalProcessAgent(RemoteAgent):
    """A bot folder's command as a child process, over gRPC on a private Unix socket."""

    def __init__(self, manifest: BotManifest, temp_root: Path | None = None,
                 max_message_bytes: int = MAX_MESSAGE_BYTES, output_cap: int = OUTPUT_CAP,
                 stop_grace_s: float = STOP_GRACE_S) -> None:
        """Prepare to run the bot; nothing starts before ``launch``."""
        super().__init__(max_message_bytes, output_cap, manifest.matches_at_once)
        self.manifest = manifest
        self.temp_root = temp_root
        self.stop_grace_s = stop_grace_s
        self.process: ChildProcess | None = None
        self.workdir: Path | None = None
        self._drain: asyncio.Task[None] | None = None
        self.on_spawn: Callable[[LocalProcessAgent], None] | None = None
        """Told as soon as the process exists, before it listens (a worker's watchdog)."""

    # --- description ---------------------------------------------------------------------

    @property
    def label(self) -> str:
        """The bot's name."""
        return self.manifest.name

    def describe(self) -> dict[str, Any]:
        """The manifest's name, version, language and path, and what the bot said in Ready."""
        description = self.manifest.describe()
        if self.ready is not None:
            description["ready"] = self.ready.to_dict()
        return description

    # --- lifecycle -----------------------------------------------------------------------

    async def launch(self, startup_s: float) -> None:
        """Start the bot and wait until it listens, at most ``startup_s`` seconds."""
        try:
            guard = lifeline()
            self.workdir = guard.new_folder(FOLDER, "cardarena-bot-",
                                            self.temp_root or Path(tempfile.gettempdir()))
            marker = guard.environment()
        except OSError as error:
            raise self._sticky(AgentFailure(Reason.VOID_INFRA, "infra",
                                            str(error))) from None
        socket_path = self.workdir / SOCKET_NAME
        if len(os.fsencode(socket_path)) > UNIX_PATH_MAX:
            raise self._sticky(AgentFailure(
                Reason.VOID_INFRA, "infra",
                f"the socket path {socket_path} is longer than {UNIX_PATH_MAX} bytes; "
                "use a shorter temporary folder (TMPDIR)"))
        address = f"unix:{socket_path}"
        env = dict(os.environ)
        env[ADDRESS_ENV] = address
        env[MATCHES_AT_ONCE_ENV] = str(self.matches_at_once)
        env.setdefault("PYTHONUNBUFFERED", "1")
        env.update(marker)
        argv = self.manifest.argv()
        try:
            self.process = await start_child(argv, self.manifest.folder, env,
                                             pdeathsig_preexec())
        except OSError as error:
            raise self._sticky(init_error(
                f"cannot run the command {argv[0]!r} in {self.manifest.folder}: "
                f"{error.strerror or error}")) from None
        guard.track(GROUP, self.process.pid)
        if self.on_spawn is not None:
            self.on_spawn(self)
        self._drain = asyncio.create_task(self._read_output(self.process))
        self._channel = connect_bot(address, self.max_message_bytes)
        outcome = await listening_or_exited(self._channel.channel_ready(), self.process, startup_s)
        if outcome == "listening":
            return
        if outcome == "exited":
            raise self._sticky(init_error(
                f"the bot exited {exit_text(self.process.returncode or 0)} before listening "
                "on its socket"))
        raise self._sticky(init_error(
            f"the bot did not listen on its socket within {startup_s:g} s"))

    async def shutdown(self) -> AgentExit:
        """Stop the bot's process group, close the channel, remove the folder (idempotent)."""
        if self.exit is not None:
            return self.exit
        status: int | None = None
        try:
            await self._disconnect()
            if self.process is not None:
                status = await self._stop(self.process)
            if self._drain is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._drain, EXIT_WAIT_S)
        finally:
            process = self.process
            if process is not None:
                _signal_group(process.pid, signal.SIGKILL)  # what is left of its group
                lifeline().forget(GROUP, process.pid)
            if self._drain is not None and not self._drain.done():
                self._drain.cancel()
            if self.workdir is not None:
                shutil.rmtree(self.workdir, ignore_errors=True)
                lifeline().forget(FOLDER, self.workdir)
        detail = "" if status is None else f"exited {exit_text(status)}"
        self.exit = AgentExit(status, detail)
        return self.exit

    async def _stop(self, process: ChildProcess) -> int:
        """SIGTERM to the group, then SIGKILL after the grace period; the exit status."""
        if process.returncode is None:
            _signal_group(process.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), self.stop_grace_s)
            except TimeoutError:
                _signal_group(process.pid, signal.SIGKILL)
        return await process.wait()

    # --- kept between matches (arena.agents.warm) ----------------------------------------

    @property
    def started(self) -> bool:
        """True once the process exists."""
        return self.process is not None

    def running(self) -> bool:
        """True while the process exists and has not exited (``/proc``)."""
        process = self.process
        return process is not None and process.returncode is None and pid_running(process.pid)

    async def still_running(self) -> bool:
        """True while the process runs."""
        return self.running()

    def begin_window(self) -> None:
        """Keep the output the process writes from now on, apart from what came before."""
        self.output = OutputLog(self.output.cap)

    async def end_window(self) -> None:
        """Nothing to gather: the process's output is read as it comes."""

    async def memory_bytes(self) -> int | None:
        """The process's resident memory."""
        return None if self.process is None else process_memory_bytes(self.process.pid)

    # --- output and exits ----------------------------------------------------------------

    async def _read_output(self, process: ChildProcess) -> None:
        """Keep the bot's output (capped per window) until the pipe closes, reading at most
        ``OUTPUT_RATE`` bytes a second after a burst of ``OUTPUT_BURST`` (a token bucket)."""
        stdout = process.stdout
        if stdout is None:
            return
        loop = asyncio.get_running_loop()
        tokens, last = float(OUTPUT_BURST), loop.time()
        while chunk := await stdout.read(OUTPUT_READ):
            self.output.append(chunk)
            now = loop.time()
            tokens = min(float(OUTPUT_BURST), tokens + (now - last) * OUTPUT_RATE) - len(chunk)
            last = now
            if tokens < 0:
                await asyncio.sleep(-tokens / OUTPUT_RATE)

    def _exit_now(self) -> AgentFailure | None:
        """A crash when the process has exited."""
        process = self.process
        if process is not None and process.returncode is not None:
            return crash(f"the bot exited {exit_text(process.returncode)}")
        return None

    async def _exit_failure(self, make: FailureMaker, suffix: str) -> AgentFailure | None:
        """Wait a moment for the process's exit; the failure naming its status, if it exited."""
        process = self.process
        if process is None:
            return None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(process.wait()), EXIT_WAIT_S)
        if process.returncode is None:
            return None
        return make(f"the bot exited {exit_text(process.returncode)}{suffix}")
