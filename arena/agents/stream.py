"""One Play stream to a bot: the receiver writes the requests, a task reads the responses.

Requests are queued by ``send`` and written by the next ``receive`` before it waits, in the
task that waits for their answer (handing them to another task would cost a switch between
tasks on every round trip). A write runs under the receive's deadline: a bot that does not take
a request in that time (its HTTP/2 flow-control window stays shut) gets its stream stopped,
and the receive returns a ``StreamEnd`` marked ``stalled``; a bot that takes its requests is
never cut off this way.

Reads never run under a deadline of their own (cancelling a gRPC read cancels the whole
call): the reader task hands every response, then the end of the stream, to the waiting
receiver or else keeps it in a buffer, and waiting for an answer is waiting on a future that
the stream's timer resolves to None at the deadline. A response that comes after its deadline
stays in the buffer for the next receive. Having handed a response to a receiver, the reader
lets it run before it asks gRPC for the next one, so an answer reaches the runner without
waiting for that. Responses stay raw bytes so that a message that does not parse is the bot's
fault, not a broken stream.

The timer is lazy: an answer does not cancel it, and a later receive only moves the deadline
it checks (or sets it again, for an earlier deadline). When it fires before the current
deadline it sets itself again for that deadline, so a bot that answers in less than a
decision's limit costs about one timer per limit, not a timer per decision (scheduling and
cancelling one is a good part of a fast round trip).
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

WRITE_FLOOR_S = 0.1
"""The least time a write gets before it counts as not taken, however close the deadline."""


@dataclass(frozen=True)
class StreamEnd:
    """The end of the bot's side of a stream: its status code and text; ``stalled`` when the
    arena stopped it because the bot did not take a request in time."""

    code: grpc.StatusCode
    details: str
    stalled: bool = False

    def describe(self) -> str:
        """``closed the stream`` or ``ended the stream with CODE: details``."""
        if self.stalled:
            return "did not take a request in time"
        if self.code == grpc.StatusCode.OK:
            return "closed the stream"
        details = " ".join(self.details.split())
        return f"ended the stream with {self.code.name}" + (f": {details}" if details else "")


def _identity(data: bytes) -> bytes:
    """Requests are serialized before they are queued."""
    return data


class PlayStream:
    """A bidirectional Play call on a channel: queued requests, written by the receiver, and a
    response reader."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        """Start the call and its reader task (needs a running event loop)."""
        self._unsent: deque[bytes | None] = deque()
        """Requests not written yet; None for the half-close."""
        self._responses: deque[bytes | StreamEnd] = deque()
        self._waiter: asyncio.Future[bytes | StreamEnd | None] | None = None
        method = channel.stream_stream(PLAY_METHOD, request_serializer=_identity,
                                       response_deserializer=None)
        self._call = method()
        self.ended: StreamEnd | None = None
        self._deadline = 0.0
        """When the current receive gives up (the event loop's clock)."""
        self._write_deadline = 0.0
        """When a write the bot does not take is stopped: the deadline, or a moment from when
        it was set if that is later."""
        self._writing = False
        self._stalled = False
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
        if self._stalled:
            end = StreamEnd(end.code, end.details, stalled=True)
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
        """Queue a serialized PlayRequest (the next receive writes it)."""
        self._unsent.append(payload)

    def finish(self) -> None:
        """Queue the half-close: no more requests."""
        self._unsent.append(None)

    async def receive(self, timeout_s: float) -> bytes | StreamEnd | None:
        """Write the queued requests, then the next response or the end of the stream, or None
        after ``timeout_s`` seconds."""
        loop = asyncio.get_running_loop()
        self._set_deadline(loop, timeout_s)
        if self._unsent:
            await self._flush()
        if self._responses:
            return self._responses.popleft()
        if timeout_s <= 0:
            return None
        if self._waiter is not None:
            raise RuntimeError("the stream is already being received from")
        waiter = self._waiter = loop.create_future()
        try:
            return await waiter
        finally:
            self._waiter = None

    async def _flush(self) -> None:
        """Write the queued requests in order; a write that fails, or that the timer stops at
        the deadline, ends the call (the reader then hands over how it ended)."""
        call, unsent = self._call, self._unsent
        while unsent and self.ended is None:
            item = unsent.popleft()
            self._writing = True
            try:
                if item is None:
                    await call.done_writing()
                else:
                    await call.write(item)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # this task is being cancelled, not only the call
                call.cancel()
                break
            except Exception:  # any failed write: the call is over, the reader says how
                call.cancel()
                break
            finally:
                self._writing = False
        if self.ended is not None or call.done():
            unsent.clear()
            await asyncio.shield(self._reader)

    def _set_deadline(self, loop: asyncio.AbstractEventLoop, timeout_s: float) -> None:
        """Make ``timeout_s`` from now the deadline; the timer fires by then."""
        now = loop.time()
        deadline = self._deadline = now + max(timeout_s, 0.0)
        self._write_deadline = max(deadline, now + WRITE_FLOOR_S)
        timer = self._timer
        if timer is None or timer.when() > deadline:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(deadline, self._on_timer)

    def _on_timer(self) -> None:
        """At the deadline, stop a write the bot does not take, or resolve a waiting receiver
        to None; before it, wait on."""
        self._timer = None
        waiter = self._waiter
        if not self._writing and (waiter is None or waiter.done()):
            return
        loop = asyncio.get_running_loop()
        due = self._write_deadline if self._writing else self._deadline
        if loop.time() < due:
            self._timer = loop.call_at(due, self._on_timer)
        elif self._writing:
            self._stalled = True
            self._call.cancel()
        elif waiter is not None:
            waiter.set_result(None)

    async def close(self, grace_s: float) -> None:
        """Half-close, give the bot ``grace_s`` seconds to take what is queued and end its
        side, then cancel."""
        self.finish()
        if grace_s > 0 and not self._reader.done():
            loop = asyncio.get_running_loop()
            self._set_deadline(loop, grace_s)
            await self._flush()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._reader),
                                       max(self._deadline - loop.time(), 0.0))
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
