"""The part every bot reached over gRPC shares: its channel, deal ledger, output windows and
sticky failures, and the lines its deals are played on.

Each deal is played on a line (``arena.agents.line``): its Play stream, Ready, decisions and
late answers, in the deal's own wire form (``arena.agents.conversation``). The instance keeps
the channel, the ledger, the output, its failure, and the streams kept for next deals.

A backend (a local process, a Docker container) starts the bot in ``launch``, sets the
channel, and says how the bot exited: ``_exit_now`` (known without waiting) and
``_exit_failure`` (waiting a moment for it). Everything else lives here.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from arena.agents.base import Agent, AgentExit, DealEnd, DealSetup, ReadyInfo, Reply, Turn
from arena.agents.errors import AgentFailure, crash, flooded, oversized
from arena.agents.ledger import DealLedger
from arena.agents.line import CLOSE_GRACE_S, DealLine, FailureMaker
from arena.agents.output import OUTPUT_CAP, OutputLog
from arena.agents.stream import StreamEnd
from arena.agents.transport import BotChannel, BotStream, bot_channel, open_stream, probe_end
from arena.reasons import Reason

MAX_MESSAGE_BYTES = 64 * 1024
"""The largest message the arena accepts from a bot; a larger one ends the bot's match."""

MAX_METADATA_BYTES = 16 * 1024
"""The most header or trailer metadata (status text included) the arena accepts from a bot
in one stream; more ends the stream."""

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


def connect_bot(target: str, max_message_bytes: int) -> BotChannel:
    """A channel to the bot listening at ``target``, with the limits and reconnection waits
    of ``channel_options``, on the transport ``CARDARENA_TRANSPORT`` chooses."""
    return bot_channel(target, max_message_bytes, channel_options(max_message_bytes),
                       MAX_METADATA_BYTES, RECONNECT_BACKOFF_MS)


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
    """A bot instance reached over one gRPC channel: its deals played on lines
    (``arena.agents.line``), its own line for ``open``, ``decide`` and ``close``, and one more
    per deal it plays at once beside it (``arena.agents.shared``)."""

    remote = True

    def __init__(self, max_message_bytes: int = MAX_MESSAGE_BYTES,
                 output_cap: int = OUTPUT_CAP, matches_at_once: int = 1) -> None:
        """Nothing is connected before the backend's ``launch`` sets the channel."""
        self.max_message_bytes = max_message_bytes
        self.matches_at_once = matches_at_once
        """Deals the instance may play at once (its manifest's ``matches_at_once``)."""
        self.output = OutputLog(output_cap)
        self.exit: AgentExit | None = None
        self._channel: BotChannel | None = None
        self._failure: AgentFailure | None = None
        self._line = DealLine(self)
        self._lines: set[DealLine] = set()
        """The lines with a deal open."""
        self._kept: list[BotStream] = []
        """Streams of ended deals kept for the next ones (``Ready.keeps_stream``)."""
        self.ledger = DealLedger()
        """The deals this instance has been shown (``arena.agents.ledger``)."""

    @property
    def ready(self) -> ReadyInfo | None:
        """What the bot said in Ready for the last deal of its own line."""
        return self._line.ready

    @property
    def discarded(self) -> int:
        """Late answers read and dropped on the instance's own line."""
        return self._line.discarded

    @property
    def failure(self) -> AgentFailure | None:
        """The failure that ended the instance for every deal, if any."""
        return self._failure

    # --- what a backend says of its bot's exit -------------------------------------------

    def _exit_now(self) -> AgentFailure | None:
        """The crash of a bot known to have exited, without waiting; None while it may run."""
        return None

    async def _exit_failure(self, make: FailureMaker, suffix: str) -> AgentFailure | None:
        """The failure of a bot that exited (waiting a moment to know), or None if it runs."""
        return None

    # --- deals ---------------------------------------------------------------------------

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal on the instance's own line."""
        await self._line.open(setup, ready_s)

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """The answer to the turn on the instance's own line."""
        return await self._line.decide(turn, timeout_s)

    async def close(self, end: DealEnd) -> None:
        """Close the deal of the instance's own line."""
        await self._line.close(end)

    # --- what lines share ----------------------------------------------------------------

    def join(self, line: DealLine) -> None:
        """Note a line opening a deal; an arena failure when the instance already plays as
        many deals at once as it may (the arena never asks it to)."""
        if line not in self._lines and len(self._lines) >= self.matches_at_once:
            raise AgentFailure(Reason.VOID_INFRA, "infra",
                               f"bot {self.label}: this instance already plays "
                               f"{self.matches_at_once} deal(s) at once, its limit")
        self._lines.add(line)

    def leave(self, line: DealLine) -> None:
        """Note a line's deal over."""
        self._lines.discard(line)

    async def next_stream(self) -> BotStream:
        """A kept stream that is still idle, else a new one."""
        if self._channel is None:
            raise RuntimeError(f"bot {self.label}: open before launch")
        while self._kept:
            kept = self._kept.pop()
            if kept.idle:
                return kept
            await kept.close(0)
        return open_stream(self._channel)

    def keep_stream(self, stream: BotStream) -> None:
        """Keep an idle stream for a next deal."""
        self._kept.append(stream)

    async def _disconnect(self) -> None:
        """Stop the streams of open deals, half-close the kept ones (giving the bot a moment
        to end them, as after a deal), and close the channel (for ``shutdown``)."""
        for line in {self._line, *self._lines}:  # the own line may be among the open ones
            await line.drop()
        kept, self._kept = self._kept, []
        await asyncio.gather(*(stream.close(CLOSE_GRACE_S) for stream in kept))
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

    def check_alive(self) -> None:
        """Raise the remembered failure, or a crash when the bot is known to have exited."""
        if self._failure is not None:
            raise self._failure
        exited = self._exit_now()
        if exited is not None:
            raise self._sticky(exited)

    async def ended(self, end: StreamEnd, make: FailureMaker, when: str) -> AgentFailure:
        """The failure of a stream the bot ended: too large a message, an exit, or a close.
        When gRPC lost the status (a write raced the end), a silent stream asks again, so a bot
        that sends oversized metadata at once is judged by that however the race went."""
        suffix = f" {when}" if when else ""
        if end.lost and self._channel is not None:
            probed = await probe_end(self._channel, PROBE_S)
            if probed is not None and (probed.oversized_metadata or probed.oversized_message):
                end = probed
        if end.flooded:
            return flooded(f"the bot {end.describe()}; its stream was stopped{suffix}")
        if end.oversized_message:
            return oversized(f"the bot sent a message larger than the "
                             f"{self.max_message_bytes} byte limit{suffix}")
        if end.oversized_metadata:
            return oversized(f"the bot sent header or trailer metadata larger than the "
                             f"{MAX_METADATA_BYTES} byte limit{suffix}")
        exited = await self._exit_failure(make, suffix)
        if exited is not None:
            return self._sticky(exited) if make is crash else exited
        return make(f"the bot {end.describe()}{suffix}")
