"""One seat of one deal on a bot instance reached over gRPC: its Play stream, conversation,
Ready and the answers it stopped waiting for.

A ``RemoteAgent`` plays its deals on a line of its own; an instance that plays several deals
at once (``matches_at_once`` in its manifest) gives each a line of its own
(``arena.agents.shared``), each on a stream of its own over the instance's one channel. The
instance keeps what all its lines share: the channel, the deal ledger (so no line ever shows it
a deal it was shown), the output, and a failure that ends them all.

A bot whose Ready says ``keeps_stream`` gets its next deal on the stream of an earlier one when
that deal ended cleanly for it (its seat OK, no answer pending or unread, the stream running):
MatchEnd is written at once, the instance keeps the stream, and the next line to open a deal
sends MatchStart on it, which saves opening a stream (the bot's and the arena's work) and
closing one per deal. Any other end closes the stream, so a late or stray answer of one deal
never meets the next.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from arena.agents.base import DealEnd, DealSetup, ReadyInfo, Reply, Turn
from arena.agents.conversation import Conversation, end_bytes, judged_reply, plain_reply
from arena.agents.errors import AgentFailure, crash, init_error, stalled
from arena.agents.ledger import DealLedger
from arena.agents.stream import StreamEnd
from arena.agents.transport import BotStream
from arena.protocol import PROTOCOL_VERSION, read_answer, read_ready
from arena.reasons import Reason

FailureMaker = Callable[[str], AgentFailure]
"""``init_error`` or ``crash``: makes the failure of a bot that ended its stream."""

READY_TEXT_CAP = 100
"""Characters of each text a bot gives in Ready that the arena keeps."""

CLOSE_GRACE_S = 1.0
"""Seconds a bot gets to end its side of a stream after MatchEnd."""


class Instance(Protocol):
    """What a line needs of the bot instance it plays on (``RemoteAgent``)."""

    ledger: DealLedger

    @property
    def label(self) -> str:
        """The bot's name."""

    @property
    def failure(self) -> AgentFailure | None:
        """The failure that ended the instance, if any."""

    def check_alive(self) -> None:
        """Raise the instance's failure, if any."""

    def join(self, line: DealLine) -> None:
        """Note a line opening a deal (an arena failure past the instance's limit)."""

    def leave(self, line: DealLine) -> None:
        """Note a line's deal over."""

    async def next_stream(self) -> BotStream:
        """A kept idle stream, else a new one."""

    def keep_stream(self, stream: BotStream) -> None:
        """Keep an idle stream for a next deal."""

    async def ended(self, end: StreamEnd, make: FailureMaker, when: str) -> AgentFailure:
        """The failure of a stream the bot ended."""


class DealLine:
    """One deal at a time of one seat, on a stream of the instance ``bot``."""

    def __init__(self, bot: Instance) -> None:
        """A line with no deal open."""
        self.bot = bot
        self.ready: ReadyInfo | None = None
        """What the bot said in Ready for the line's last deal."""
        self.discarded = 0
        """Late answers read and dropped (answers to requests the arena stopped waiting for)."""
        self._stream: BotStream | None = None
        self._conversation: Conversation | None = None
        self._abandoned: set[int] = set()

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal's Play stream, send MatchStart and check the bot's Ready."""
        bot = self.bot
        bot.check_alive()
        bot.ledger.admit(setup.seed, bot.label)
        if self._stream is not None:
            await self.drop()
        bot.join(self)
        self._abandoned.clear()
        self.ready = None
        conversation = self._conversation = Conversation(setup)
        stream = self._stream = await bot.next_stream()
        stream.send(conversation.start_bytes())
        item = await stream.receive(ready_s)
        try:
            self.ready = await self._check_ready(item, ready_s)
            if self.ready.protocol_version != PROTOCOL_VERSION:
                raise init_error(f"the bot speaks protocol {self.ready.protocol_version!r}; "
                                 f"the arena speaks {PROTOCOL_VERSION!r}")
        except AgentFailure:
            await self.drop()
            raise

    async def _check_ready(self, item: bytes | StreamEnd | None, ready_s: float) -> ReadyInfo:
        """The Ready message, or an ``INIT_ERROR`` failure saying what came instead."""
        if item is None:
            raise init_error(f"no Ready within {ready_s:g} s of MatchStart")
        if isinstance(item, StreamEnd) and item.stalled:
            raise init_error(f"the bot did not take MatchStart within {ready_s:g} s")
        if isinstance(item, StreamEnd):
            raise await self.bot.ended(item, init_error, "before Ready")
        ready = read_ready(item)
        if ready.problem:
            raise init_error(f"the bot answered MatchStart with {ready.problem}")
        return ReadyInfo(ready.protocol_version[:READY_TEXT_CAP], ready.bot_name[:READY_TEXT_CAP],
                         ready.bot_version[:READY_TEXT_CAP], ready.keeps_stream)

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """Send the turn's request and wait for its answer, in engine terms; late answers to
        earlier ones are dropped. The reply carries the time the bot is charged
        (``StreamReceiver.took_us``)."""
        self.bot.check_alive()
        stream, conversation = self._stream, self._conversation
        if stream is None or conversation is None:
            raise RuntimeError(f"bot {self.bot.label}: decide outside a deal")
        stream.send(conversation.request_bytes(turn))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            item = await stream.receive(deadline - loop.time())
            if item is None:
                self._abandoned.add(turn.request_id)
                return None
            if isinstance(item, StreamEnd):
                await self.drop()
                if item.stalled:
                    raise stalled(f"the bot did not take request {turn.request_id} within "
                                  f"{timeout_s * 1000:.0f} ms (decision and bank); its stream "
                                  "was stopped")
                raise await self.bot.ended(item, crash, "")
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
        """Send MatchEnd; hand the stream back to the instance for a next deal when the bot
        takes one there and this deal ended cleanly for it (and the stream is idle once
        MatchEnd is written), else half-close and give the bot a moment to end its side."""
        stream, self._stream = self._stream, None
        conversation, self._conversation = self._conversation, None
        self.bot.leave(self)
        if stream is None:
            return
        if stream.ended is None:
            stream.send(end_bytes(end), answered=False)
            if self._may_keep(end, conversation):
                await stream.flush(CLOSE_GRACE_S)
                if stream.idle:
                    self.bot.keep_stream(stream)
                    return
        await stream.close(CLOSE_GRACE_S)

    def _may_keep(self, end: DealEnd, conversation: Conversation | None) -> bool:
        """True when the deal's stream may carry a next deal: the bot said so in Ready, the
        deal ended OK for its seat, and no answer is pending."""
        ready = self.ready
        return (ready is not None and ready.keeps_stream and conversation is not None
                and self.bot.failure is None and not self._abandoned
                and end.reasons[conversation.setup.seat] == Reason.OK)

    async def drop(self) -> None:
        """Stop the line's stream at once, if any; the line then has no deal open."""
        stream, self._stream = self._stream, None
        self._conversation = None
        self.bot.leave(self)
        if stream is not None:
            await stream.close(0)
