"""The part every bot reached over gRPC shares: the Play stream per deal, Ready, decisions,
late answers, output windows and sticky failures.

Each deal's wire form is the agent's own (``arena.agents.conversation``): it encodes the
seat's requests from the deal's state, and hands the runner each answer as an engine action
or the fault it is.

A backend (a local process, a Docker container) starts the bot in ``launch``, sets the
channel, and says how the bot exited: ``_exit_now`` (known without waiting) and
``_exit_failure`` (waiting a moment for it). Everything else lives here.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import Any

import grpc

from arena.agents.base import Agent, AgentExit, DealEnd, DealSetup, ReadyInfo, Reply, Turn
from arena.agents.conversation import Conversation, end_bytes, judged_reply, plain_reply
from arena.agents.errors import AgentFailure, crash, flooded, init_error, oversized, stalled
from arena.agents.ledger import DealLedger
from arena.agents.output import OUTPUT_CAP, OutputLog
from arena.agents.stream import PlayStream, StreamEnd, probe_end
from arena.protocol import PROTOCOL_VERSION, read_answer, read_ready

MAX_MESSAGE_BYTES = 64 * 1024
"""The largest message the arena accepts from a bot; a larger one ends the bot's match."""

MAX_METADATA_BYTES = 16 * 1024
"""The most header or trailer metadata (status text included) the arena accepts from a bot
in one stream; more ends the stream."""

READY_TEXT_CAP = 100
"""Characters of each text a bot gives in Ready that the arena keeps."""

CLOSE_GRACE_S = 1.0
"""Seconds a bot gets to end its side of a stream after MatchEnd."""

EXIT_WAIT_S = 1.0
"""Seconds to wait for a bot's exit status after its stream broke."""

PROBE_S = 1.0
"""Seconds a second, silent stream waits to learn how a bot ended one whose status gRPC lost."""

CONNECT_ATTEMPT_MS = 60_000
"""The least time gRPC gives one attempt to connect to a bot, its HTTP/2 handshake
included (gRPC reads it from ``grpc.min_reconnect_backoff_ms``). A bot that is slow to answer
a connection, on a loaded host, is waited for rather than dropped and dialled again: every
attempt dropped would leave the bot one more connection to answer first. The launch's
start-up deadline bounds the wait."""

RECONNECT_BACKOFF_MS = (100, 200)
"""The first and the longest wait before dialling a bot again after a refused connection
(one that is not listening yet), in milliseconds (gRPC waits at least 100)."""

FailureMaker = Callable[[str], AgentFailure]
"""``init_error`` or ``crash``: makes the failure of a bot that ended its stream."""


def channel_options(max_message_bytes: int) -> list[tuple[str, Any]]:
    """Channel options: small receive limits (messages, and header and trailer metadata, where
    gRPC's soft limit equals its hard one so the refusal is certain), a short wait before
    dialling again a bot that refused, a long one for a connection to be answered, a private
    pool, and ``localhost`` as the HTTP/2 authority (over a Unix socket gRPC would
    send the socket's path, which some HTTP/2 servers, Rust's hyper among them, refuse as a
    malformed authority). No bandwidth-delay probing: its PING frames, which both sides
    answer, only tune the flow-control window for bulk transfers, and a Play stream carries
    small messages in lock step."""
    return [
        ("grpc.default_authority", "localhost"),
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_metadata_size", MAX_METADATA_BYTES),
        ("grpc.absolute_max_metadata_size", MAX_METADATA_BYTES),
        ("grpc.initial_reconnect_backoff_ms", RECONNECT_BACKOFF_MS[0]),
        ("grpc.max_reconnect_backoff_ms", RECONNECT_BACKOFF_MS[1]),
        ("grpc.min_reconnect_backoff_ms", CONNECT_ATTEMPT_MS),
        ("grpc.use_local_subchannel_pool", 1),
        ("grpc.enable_retries", 0),
        ("grpc.http2.bdp_probe", 0),
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


class RemoteAgent(Agent):
    """A bot reached over one gRPC channel: one Play stream per deal, opened by ``open``."""

    remote = True

    def __init__(self, max_message_bytes: int = MAX_MESSAGE_BYTES,
                 output_cap: int = OUTPUT_CAP) -> None:
        """Nothing is connected before the backend's ``launch`` sets the channel."""
        self.max_message_bytes = max_message_bytes
        self.output = OutputLog(output_cap)
        self.ready: ReadyInfo | None = None
        self.exit: AgentExit | None = None
        self.discarded = 0
        """Late answers read and dropped (answers to requests the arena stopped waiting for)."""
        self._channel: grpc.aio.Channel | None = None
        self._stream: PlayStream | None = None
        self._conversation: Conversation | None = None
        self._failure: AgentFailure | None = None
        self._abandoned: set[int] = set()
        self.ledger = DealLedger()
        """The deals this instance has been shown (``arena.agents.ledger``)."""

    # --- what a backend says of its bot's exit -------------------------------------------

    def _exit_now(self) -> AgentFailure | None:
        """The crash of a bot known to have exited, without waiting; None while it may run."""
        return None

    async def _exit_failure(self, make: FailureMaker, suffix: str) -> AgentFailure | None:
        """The failure of a bot that exited (waiting a moment to know), or None if it runs."""
        return None

    # --- deals ---------------------------------------------------------------------------

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal's Play stream, send MatchStart and check the bot's Ready."""
        self._raise_if_failed()
        self.ledger.admit(setup.seed, self.label)
        if self._channel is None:
            raise RuntimeError(f"bot {self.label}: open before launch")
        if self._stream is not None:
            await self._stream.close(0)
        self._abandoned.clear()
        self.ready = None
        conversation = self._conversation = Conversation(setup)
        stream = self._stream = PlayStream(self._channel)
        stream.send(conversation.start_bytes())
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
        if isinstance(item, StreamEnd) and item.stalled:
            raise init_error(f"the bot did not take MatchStart within {ready_s:g} s")
        if isinstance(item, StreamEnd):
            raise await self._ended(item, init_error, "before Ready")
        ready = read_ready(item)
        if ready.problem:
            raise init_error(f"the bot answered MatchStart with {ready.problem}")
        return ReadyInfo(ready.protocol_version[:READY_TEXT_CAP], ready.bot_name[:READY_TEXT_CAP],
                         ready.bot_version[:READY_TEXT_CAP])

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """Send the turn's request and wait for its answer, in engine terms; late answers to
        earlier ones are dropped. The reply carries the time the bot is charged
        (``PlayStream.took_us``)."""
        self._raise_if_failed()
        stream, conversation = self._stream, self._conversation
        if stream is None or conversation is None:
            raise RuntimeError(f"bot {self.label}: decide outside a deal")
        stream.send(conversation.request_bytes(turn))
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
                if item.stalled:
                    raise stalled(f"the bot did not take request {turn.request_id} within "
                                  f"{timeout_s * 1000:.0f} ms (decision and bank); its stream "
                                  "was stopped")
                raise await self._ended(item, crash, "")
            took_us = stream.took_us()
            reply = plain_reply(turn, item, took_us)
            if reply is not None:
                return reply
            answer = read_answer(item)
            if not answer.malformed and answer.request_id in self._abandoned:
                self._abandoned.discard(answer.request_id)
                self.discarded += 1
                continue
            if answer.malformed or answer.request_id != turn.request_id:
                self._abandoned.add(turn.request_id)
            return judged_reply(turn, answer, took_us)

    async def close(self, end: DealEnd) -> None:
        """Send MatchEnd, half-close, and give the bot a moment to end its side."""
        stream, self._stream = self._stream, None
        self._conversation = None
        if stream is None:
            return
        if stream.ended is None:
            stream.send(end_bytes(end), answered=False)
        await stream.close(CLOSE_GRACE_S)

    async def _disconnect(self) -> None:
        """Close the open stream, if any, and the channel (for ``shutdown``)."""
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.close(0)
        channel, self._channel = self._channel, None
        if channel is not None:
            await channel.close()

    # --- output and failures -------------------------------------------------------------

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
        """Raise the remembered failure, or a crash when the bot is known to have exited."""
        if self._failure is not None:
            raise self._failure
        exited = self._exit_now()
        if exited is not None:
            raise self._sticky(exited)

    async def _ended(self, end: StreamEnd, make: FailureMaker, when: str) -> AgentFailure:
        """The failure of a stream the bot ended: too large a message, an exit, or a close.
        When gRPC lost the status (a write raced the end), a silent stream asks again, so a bot
        that sends oversized metadata at once is judged by that however the race went."""
        suffix = f" {when}" if when else ""
        if end.lost and self._channel is not None:
            probed = await probe_end(self._channel, PROBE_S)
            if probed is not None and probed.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                end = probed
        if end.flooded:
            return flooded(f"the bot {end.describe()}; its stream was stopped{suffix}")
        if end.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in end.details:
            return oversized(f"the bot sent a message larger than the "
                             f"{self.max_message_bytes} byte limit{suffix}")
        if end.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "metadata size" in end.details:
            return oversized(f"the bot sent header or trailer metadata larger than the "
                             f"{MAX_METADATA_BYTES} byte limit{suffix}")
        exited = await self._exit_failure(make, suffix)
        if exited is not None:
            return self._sticky(exited) if make is crash else exited
        return make(f"the bot {end.describe()}{suffix}")
