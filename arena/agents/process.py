"""The local-process agent: a bot folder's command, started here, reached over a Unix socket.

Each bot gets a fresh private temporary folder; the arena passes the socket address in
``CARDARENA_ADDRESS`` (``unix:<folder>/agent.sock``), waits until the bot listens under a
start-up deadline (noticing an early exit), and opens one Play stream per deal. The bot runs
in a session of its own; ``shutdown`` stops the whole group (SIGTERM, then SIGKILL after a
grace period), removes the folder and keeps the last bytes of the bot's output.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from arena.agents.base import Agent, AgentExit, DealEnd, DealSetup, ReadyInfo, Reply, Turn
from arena.agents.errors import AgentFailure, crash, init_error, oversized
from arena.agents.manifest import BotManifest
from arena.agents.output import OUTPUT_CAP, OutputLog
from arena.agents.stream import PlayStream, StreamEnd, parse_reply
from arena.protocol import PROTOCOL_VERSION
from arena.protocol.v1 import agent_pb2 as pb

ADDRESS_ENV = "CARDARENA_ADDRESS"
"""The environment variable that gives a bot its listening address."""

SOCKET_NAME = "agent.sock"

UNIX_PATH_MAX = 107
"""The longest Unix socket path in bytes."""

MAX_MESSAGE_BYTES = 64 * 1024
"""The largest message the arena accepts from a bot; a larger one ends the bot's match."""

STOP_GRACE_S = 2.0
"""Seconds a bot gets to exit after SIGTERM before SIGKILL."""

CLOSE_GRACE_S = 1.0
"""Seconds a bot gets to end its side of a stream after MatchEnd."""

EXIT_WAIT_S = 1.0
"""Seconds to wait for a bot's exit status after its stream broke."""


def channel_options(max_message_bytes: int) -> list[tuple[str, Any]]:
    """Channel options: a small receive limit, a short reconnect backoff, a private pool."""
    return [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.initial_reconnect_backoff_ms", 20),
        ("grpc.min_reconnect_backoff_ms", 20),
        ("grpc.max_reconnect_backoff_ms", 200),
        ("grpc.use_local_subchannel_pool", 1),
        ("grpc.enable_retries", 0),
    ]


def exit_text(status: int) -> str:
    """``with status 3`` or ``on signal 9 (SIGKILL)``."""
    if status >= 0:
        return f"with status {status}"
    try:
        name = signal.Signals(-status).name
    except ValueError:
        return f"on signal {-status}"
    return f"on signal {-status} ({name})"


def _signal_group(pid: int, signum: int) -> None:
    """Send a signal to the bot's process group (its own session), if it still exists."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)



async def listening_or_exited(listening: Awaitable[object], process: asyncio.subprocess.Process,
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


class LocalProcessAgent(Agent):
    """A bot folder's command as a child process, over gRPC on a private Unix socket."""

    remote = True

    def __init__(self, manifest: BotManifest, temp_root: Path | None = None,
                 max_message_bytes: int = MAX_MESSAGE_BYTES, output_cap: int = OUTPUT_CAP,
                 stop_grace_s: float = STOP_GRACE_S) -> None:
        """Prepare to run the bot; nothing starts before ``launch``."""
        self.manifest = manifest
        self.temp_root = temp_root
        self.max_message_bytes = max_message_bytes
        self.stop_grace_s = stop_grace_s
        self.output = OutputLog(output_cap)
        self.process: asyncio.subprocess.Process | None = None
        self.workdir: Path | None = None
        self.ready: ReadyInfo | None = None
        self.exit: AgentExit | None = None
        self.discarded = 0
        """Late answers read and dropped (answers to requests the arena stopped waiting for)."""
        self._channel: grpc.aio.Channel | None = None
        self._stream: PlayStream | None = None
        self._drain: asyncio.Task[None] | None = None
        self._failure: AgentFailure | None = None
        self._abandoned: set[int] = set()

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
        self.workdir = Path(tempfile.mkdtemp(prefix="cardarena-bot-", dir=self.temp_root))
        socket_path = self.workdir / SOCKET_NAME
        if len(os.fsencode(socket_path)) > UNIX_PATH_MAX:
            raise self._sticky(AgentFailure(
                pb.REASON_CODE_VOID_INFRA, "infra",
                f"the socket path {socket_path} is longer than {UNIX_PATH_MAX} bytes; "
                "use a shorter temporary folder (TMPDIR)"))
        address = f"unix:{socket_path}"
        env = dict(os.environ)
        env[ADDRESS_ENV] = address
        env.setdefault("PYTHONUNBUFFERED", "1")
        argv = self.manifest.argv()
        try:
            self.process = await asyncio.create_subprocess_exec(
                *argv, cwd=self.manifest.folder, env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                start_new_session=True)
        except OSError as error:
            raise self._sticky(init_error(
                f"cannot run the command {argv[0]!r} in {self.manifest.folder}: "
                f"{error.strerror or error}")) from None
        self._drain = asyncio.create_task(self._read_output(self.process))
        self._channel = grpc.aio.insecure_channel(address,
                                                  options=channel_options(self.max_message_bytes))
        outcome = await listening_or_exited(self._channel.channel_ready(), self.process, startup_s)
        if outcome == "listening":
            return
        if outcome == "exited":
            raise self._sticky(init_error(
                f"the bot exited {exit_text(self.process.returncode or 0)} before listening "
                "on its socket"))
        raise self._sticky(init_error(
            f"the bot did not listen on its socket within {startup_s:g} s"))

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal's Play stream, send MatchStart and check the bot's Ready."""
        self._raise_if_failed()
        if self._channel is None:
            raise RuntimeError(f"bot {self.label}: open before launch")
        if self._stream is not None:
            await self._stream.close(0)
        self._abandoned.clear()
        self.ready = None
        stream = self._stream = PlayStream(self._channel)
        stream.send(pb.PlayRequest(match_start=setup.start()).SerializeToString())
        item = await stream.receive(ready_s)
        try:
            self.ready = await self._check_ready(item, ready_s)
        except AgentFailure:
            self._stream = None
            await stream.close(0)
            raise
        if self.ready.protocol_version != PROTOCOL_VERSION:
            self._stream = None
            await stream.close(0)
            raise init_error(f"the bot speaks protocol {self.ready.protocol_version!r}; "
                             f"the arena speaks {PROTOCOL_VERSION!r}")

    async def _check_ready(self, item: bytes | StreamEnd | None, ready_s: float) -> ReadyInfo:
        """The Ready message, or an ``INIT_ERROR`` failure saying what came instead."""
        if item is None:
            raise init_error(f"no Ready within {ready_s:g} s of MatchStart")
        if isinstance(item, StreamEnd):
            raise await self._ended(item, init_error, "before Ready")
        try:
            response = pb.PlayResponse.FromString(item)
        except DecodeError as error:
            raise init_error(f"the bot answered MatchStart with a malformed message "
                             f"({error})") from None
        which = response.WhichOneof("message")
        if which != "ready":
            what = "an empty PlayResponse" if which is None else f"a {which} message"
            raise init_error(f"the bot answered MatchStart with {what}, not Ready")
        ready = response.ready
        return ReadyInfo(ready.protocol_version, ready.bot_name, ready.bot_version)

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """Send the request and wait for its answer; late answers to earlier ones are dropped."""
        self._raise_if_failed()
        stream = self._stream
        if stream is None:
            raise RuntimeError(f"bot {self.label}: decide outside a deal")
        stream.send(turn.payload())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            item = await stream.receive(deadline - loop.time())
            if item is None:
                self._abandoned.add(turn.request_id)
                return None
            if isinstance(item, StreamEnd):
                self._stream = None
                await stream.close(0)
                raise await self._ended(item, crash, "")
            reply = parse_reply(item)
            if not reply.malformed and reply.request_id in self._abandoned:
                self._abandoned.discard(reply.request_id)
                self.discarded += 1
                continue
            if reply.malformed or reply.request_id != turn.request_id:
                self._abandoned.add(turn.request_id)
            return reply

    async def close(self, end: DealEnd) -> None:
        """Send MatchEnd, half-close, and give the bot a moment to end its side."""
        stream, self._stream = self._stream, None
        if stream is None:
            return
        if stream.ended is None:
            stream.send(pb.PlayRequest(match_end=end.end()).SerializeToString())
        await stream.close(CLOSE_GRACE_S)

    async def shutdown(self) -> AgentExit:
        """Stop the bot's process group, close the channel, remove the folder (idempotent)."""
        if self.exit is not None:
            return self.exit
        status: int | None = None
        try:
            stream, self._stream = self._stream, None
            if stream is not None:
                await stream.close(0)
            if self._channel is not None:
                await self._channel.close()
            if self.process is not None:
                status = await self._stop(self.process)
            if self._drain is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._drain, EXIT_WAIT_S)
        finally:
            process = self.process
            if process is not None and process.returncode is None:
                _signal_group(process.pid, signal.SIGKILL)
            if self._drain is not None and not self._drain.done():
                self._drain.cancel()
            if self.workdir is not None:
                shutil.rmtree(self.workdir, ignore_errors=True)
        detail = "" if status is None else f"exited {exit_text(status)}"
        self.exit = AgentExit(status, detail)
        return self.exit

    async def _stop(self, process: asyncio.subprocess.Process) -> int:
        """SIGTERM to the group, then SIGKILL after the grace period; the exit status."""
        if process.returncode is None:
            _signal_group(process.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), self.stop_grace_s)
            except TimeoutError:
                _signal_group(process.pid, signal.SIGKILL)
        return await process.wait()

    # --- output and failures -------------------------------------------------------------

    async def _read_output(self, process: asyncio.subprocess.Process) -> None:
        """Keep the bot's output (capped per window) until the pipe closes."""
        stdout = process.stdout
        if stdout is None:
            return
        while chunk := await stdout.read(4096):
            self.output.append(chunk)

    def mark_output(self) -> None:
        """Start a new output window (the next deal's)."""
        self.output.mark()

    def output_windows(self) -> list[str]:
        """The captured output per deal window."""
        return self.output.texts()

    def _sticky(self, failure: AgentFailure) -> AgentFailure:
        """Remember a failure the agent cannot recover from; every later call raises it."""
        self._failure = failure
        return failure

    def _raise_if_failed(self) -> None:
        """Raise the remembered failure, or a crash when the process has exited."""
        if self._failure is not None:
            raise self._failure
        process = self.process
        if process is not None and process.returncode is not None:
            raise self._sticky(crash(f"the bot exited {exit_text(process.returncode)}"))

    async def _ended(self, end: StreamEnd, make: Any, when: str) -> AgentFailure:
        """The failure of a stream the bot ended: too large a message, an exit, or a close."""
        suffix = f" {when}" if when else ""
        if (end.code == grpc.StatusCode.RESOURCE_EXHAUSTED
                and "larger than max" in end.details):
            return oversized(f"the bot sent a message larger than the "
                             f"{self.max_message_bytes} byte limit{suffix}")
        process = self.process
        if process is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(process.wait()), EXIT_WAIT_S)
            if process.returncode is not None:
                failure: AgentFailure = make(f"the bot exited {exit_text(process.returncode)}"
                                             f"{suffix}")
                return self._sticky(failure) if make is crash else failure
        failure = make(f"the bot {end.describe()}{suffix}")
        return failure
