"""One Play stream to a bot: requests go out through a buffer, a task reads the responses.

Reads never run under a deadline of their own (cancelling a gRPC read cancels the whole
call): the reader task hands every response, then the end of the stream, to the waiting
receiver or else keeps it in a buffer, and waiting for an answer is waiting on a future that
the stream's timer resolves to None at the deadline. A response that comes after its deadline
stays in the buffer for the next receive. Having handed a response to a receiver, the reader
lets it run before it asks gRPC for the next one, so an answer reaches the runner without
waiting for that. Responses stay raw bytes so that a message that does
not parse is the bot's fault, not a broken stream.

The timer is lazy: an answer does not cancel it, and a later receive only moves the deadline
it checks (or sets it again, for an earlier deadline). When it fires before the current
deadline it sets itself again for that deadline,
so a bot that answers in less than a decision's limit costs about one timer per limit, not a
timer per decision (scheduling and cancelling one is a good part of a fast round trip).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from dataclasses import dataclass

import grpc
from google.protobuf.message import DecodeError

from arena.agents.base import Reply
from arena.protocol.replies import decision_fields
from arena.protocol.v1 import agent_pb2 as pb

PLAY_METHOD = "/cardarena.v1.AgentService/Play"
"""The full name of the bot's Play method."""


@dataclass(frozen=True)
class StreamEnd:
    """The end of the bot's side of a stream: its status code and text."""

    code: grpc.StatusCode
    details: str

    def describe(self) -> str:
        """``closed the stream`` or ``ended the stream with CODE: details``."""
        if self.code == grpc.StatusCode.OK:
            return "closed the stream"
        details = " ".join(self.details.split())
        return f"ended the stream with {self.code.name}" + (f": {details}" if details else "")


def _identity(data: bytes) -> bytes:
    """Requests are serialized before they are queued."""
    return data


class _Outbox:
    """The requests of a call as an async iterator: a buffer and at most one waiting reader."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        """An empty outbox."""
        self._items: deque[bytes | None] = deque()
        self._waiter: asyncio.Future[bytes | None] | None = None

    def put(self, item: bytes | None) -> None:
        """Queue a request, or None for the end of the requests."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            self._waiter = None
            waiter.set_result(item)
        else:
            self._items.append(item)

    def __aiter__(self) -> _Outbox:
        """The outbox is its own iterator."""
        return self

    async def __anext__(self) -> bytes:
        """The next request; the iteration stops at the end of the requests."""
        if self._items:
            item = self._items.popleft()
        else:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                item = await waiter
            finally:
                self._waiter = None
        if item is None:
            self._items.appendleft(None)
            raise StopAsyncIteration
        return item


class PlayStream:
    """A bidirectional Play call on a channel, with queued requests and a response reader."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        """Start the call and its reader task (needs a running event loop)."""
        self._requests = _Outbox()
        self._responses: deque[bytes | StreamEnd] = deque()
        self._waiter: asyncio.Future[bytes | StreamEnd | None] | None = None
        method = channel.stream_stream(PLAY_METHOD, request_serializer=_identity,
                                       response_deserializer=None)
        self._call = method(self._requests)
        self.ended: StreamEnd | None = None
        self._deadline = 0.0
        """When the current receive gives up (the event loop's clock)."""
        self._timer: asyncio.TimerHandle | None = None
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        """Hand over every response, then the end of the stream."""
        try:
            async for raw in self._call:
                if self._deliver(raw):
                    await asyncio.sleep(0)  # the receiver first, the next read after it
            end = StreamEnd(grpc.StatusCode.OK, "")
        except grpc.aio.AioRpcError as error:
            end = StreamEnd(error.code(), error.details() or "")
        except asyncio.CancelledError:
            end = StreamEnd(grpc.StatusCode.CANCELLED, "cancelled by the arena")
        self.ended = end
        self._deliver(end)

    def _deliver(self, item: bytes | StreamEnd) -> bool:
        """Give ``item`` to the waiting receiver (True), or keep it for the next one."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(item)
            return True
        self._responses.append(item)
        return False

    def send(self, payload: bytes) -> None:
        """Queue a serialized PlayRequest."""
        self._requests.put(payload)

    def finish(self) -> None:
        """Half-close: no more requests."""
        self._requests.put(None)

    async def receive(self, timeout_s: float) -> bytes | StreamEnd | None:
        """The next response or the end of the stream, or None after ``timeout_s`` seconds."""
        if self._responses:
            return self._responses.popleft()
        if timeout_s <= 0:
            return None
        if self._waiter is not None:
            raise RuntimeError("the stream is already being received from")
        loop = asyncio.get_running_loop()
        deadline = self._deadline = loop.time() + timeout_s
        timer = self._timer
        if timer is None or timer.when() > deadline:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(deadline, self._on_timer)
        waiter = self._waiter = loop.create_future()
        try:
            return await waiter
        finally:
            self._waiter = None

    def _on_timer(self) -> None:
        """At the current deadline, resolve a waiting receiver to None; before it, wait on."""
        self._timer = None
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        loop = asyncio.get_running_loop()
        if loop.time() >= self._deadline:
            waiter.set_result(None)
        else:
            self._timer = loop.call_at(self._deadline, self._on_timer)

    async def close(self, grace_s: float) -> None:
        """Half-close, give the bot ``grace_s`` seconds to end its side, then cancel."""
        self.finish()
        if grace_s > 0 and not self._reader.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._reader), grace_s)
        self._call.cancel()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._reader.done():
            self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


def parse_reply(raw: bytes) -> Reply:
    """A bot's response to a DecisionRequest; anything but a Decision is marked malformed.

    A plainly encoded Decision (what every protobuf library writes) is read from its bytes;
    anything else goes through protobuf."""
    fields = decision_fields(raw)
    if fields is not None:
        return Reply(*fields)
    try:
        response = pb.PlayResponse.FromString(raw)
    except DecodeError as error:
        return Reply(0, 0, malformed=f"not a PlayResponse message ({error})")
    which = response.WhichOneof("message")
    if which != "decision":
        what = "an empty PlayResponse" if which is None else f"a {which} message"
        return Reply(0, 0, malformed=f"{what} where a Decision was due")
    decision = response.decision
    return Reply(decision.request_id, decision.action_id, decision.debug)
