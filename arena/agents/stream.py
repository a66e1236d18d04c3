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
asks gRPC for the next one in the same step (the receiver runs next): one task step per
response, as a plain read loop takes, where yielding to the receiver first cost a loop turn
more per decision. Responses stay raw bytes so that a message that does not parse is the
bot's fault, not a broken stream.

A bot may send one response for each request that asks for one (MatchStart and every
DecisionRequest; MatchEnd asks for none), and at most ``UNSOLICITED_LIMIT`` more in a stream:
past that, the reader drops what it kept, stops the call and hands over a ``StreamEnd`` marked
``flooded``. So the responses kept between two receives are bounded by the requests asked
(one at a time) plus that limit, each no larger than the channel's receive limit, and a bot
that floods the arena with messages is stopped after a handful of them.

The timer is lazy: an answer does not cancel it, and a later receive only moves the deadline
it checks (or sets it again, for an earlier deadline). When it fires before the current
deadline it sets itself again for that deadline, so a bot that answers in less than a
decision's limit costs about one timer per limit, not a timer per decision (scheduling and
cancelling one is a good part of a fast round trip).

The clock: each write notes when the transport had written the request (``sent_ns``: gRPC
reports a write done once it is on the socket, and ``loopclock`` tells the latest moment that
report can have come), each response the earliest moment it could have been read
(``arrived_ns``, the event loop's lag left out), and ``took_us`` is the time between them,
what a bot is charged: neither the arena's queueing before the request reaches the socket nor
its delay in reading the answer counts. At the deadline a waiting receiver gets
``LAST_LOOKS`` more turns of the loop before it gives up, so an answer that came in time but
found the loop busy is still handed over (and judged by when it came).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from dataclasses import dataclass

import grpc

from arena.agents.loopclock import loop_clock

PLAY_METHOD = "/cardarena.v1.AgentService/Play"
"""The full name of the bot's Play method."""

WRITE_FLOOR_S = 0.1
"""The least time a write gets before it counts as not taken, however close the deadline."""

UNSOLICITED_LIMIT = 4
"""Responses a bot may send in a stream beyond one per request that asks for one; one more
ends the stream as a flood."""

LAST_LOOKS = 2
"""Loop turns a receiver still waits past its deadline: an answer that came by then and
found the loop busy is handed over in one turn (``loopclock``); whether it was in time is the
clock's to say, from when it came."""

DETAILS_CAP = 300
"""Characters of a bot's gRPC status text kept in the description of its stream's end."""

LOST_STATUS = "Internal error from Core"
"""The text ``grpc.aio`` gives, with INTERNAL, to a call whose write failed because the call
had ended: the status the call ended with is then lost (``probe_end`` asks again)."""


@dataclass(frozen=True)
class StreamEnd:
    """The end of the bot's side of a stream: its status code and text; ``stalled`` when the
    arena stopped it because the bot did not take a request in time, ``flooded`` when it
    stopped it because the bot sent more responses than it was asked for;
    ``oversized_message`` and ``oversized_metadata`` when the transport refused a response
    message, or header or trailer metadata, larger than its limit."""

    code: grpc.StatusCode
    details: str
    stalled: bool = False
    flooded: bool = False
    oversized_message: bool = False
    oversized_metadata: bool = False

    @property
    def lost(self) -> bool:
        """True when gRPC kept no status: the call ended as the arena wrote to it."""
        return self.code == grpc.StatusCode.INTERNAL and self.details == LOST_STATUS

    def describe(self) -> str:
        """``closed the stream`` or ``ended the stream with CODE: details`` (capped)."""
        if self.stalled:
            return "did not take a request in time"
        if self.flooded:
            return f"sent more than {UNSOLICITED_LIMIT} responses it was not asked for"
        if self.code == grpc.StatusCode.OK:
            return "closed the stream"
        details = " ".join(self.details[:DETAILS_CAP * 4].split())
        if len(details) > DETAILS_CAP:
            details = details[:DETAILS_CAP] + "..."
        return f"ended the stream with {self.code.name}" + (f": {details}" if details else "")


def grpc_end(code: grpc.StatusCode, details: str) -> StreamEnd:
    """The end of a ``grpc.aio`` call, its limits' refusals told by gRPC's words for them."""
    refused = code == grpc.StatusCode.RESOURCE_EXHAUSTED
    return StreamEnd(code, details, oversized_message=refused and "larger than max" in details,
                     oversized_metadata=refused and "metadata size" in details)


Item = tuple[bytes | StreamEnd, int]
"""A response or the stream's end, with when it came (``time.perf_counter_ns``)."""


class StreamReceiver:
    """What every transport's Play stream shares: responses kept for the next receive, the
    receiver's deadline and its lazy timer, the last looks, and the clock's two moments.

    A transport says whether a write is waiting for the bot to take it (``_write_waits``) and
    how to stop a stream whose bot does not take one (``_stall``); it hands every response and
    the end over with ``_deliver``."""

    def __init__(self) -> None:
        """No response, no deadline."""
        self._responses: deque[Item] = deque()
        """Responses kept for the next receive, each with the moment it came."""
        self._waiter: asyncio.Future[Item | None] | None = None
        self.sent_ns = 0
        """When the transport had written the last request (``time.perf_counter_ns``, as the
        loop clock tells the moment of a completion: the loop's lag left out)."""
        self.arrived_ns = 0
        """When the last response received could first have been read."""
        self.ended: StreamEnd | None = None
        self._deadline = 0.0
        """When the current receive gives up (the event loop's clock)."""
        self._write_deadline = 0.0
        """When a write the bot does not take is stopped: the deadline, or a moment from when
        it was set if that is later."""
        self._asked = 0
        """Requests queued that ask for a response."""
        self._received = 0
        self._timer: asyncio.TimerHandle | None = None

    def _deliver(self, item: bytes | StreamEnd, arrived_ns: int) -> bool:
        """Give ``item``, which came at ``arrived_ns``, to the waiting receiver (True), or keep
        it for the next one."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result((item, arrived_ns))
            return True
        self._responses.append((item, arrived_ns))
        return False

    async def _await_response(self, loop: asyncio.AbstractEventLoop,
                              timeout_s: float) -> bytes | StreamEnd | None:
        """The next response or the end, kept or awaited until the timer gives up."""
        if self._responses:
            item, self.arrived_ns = self._responses.popleft()
            return item
        if timeout_s <= 0:
            return None
        if self._waiter is not None:
            raise RuntimeError("the stream is already being received from")
        waiter = self._waiter = loop.create_future()
        try:
            got = await waiter
        finally:
            self._waiter = None
        if got is None:
            return None
        item, self.arrived_ns = got
        return item

    def took_us(self) -> int:
        """The time from writing the last request to when the last response received could
        first be read, in microseconds (the event loop's lag left out)."""
        return max(self.arrived_ns - self.sent_ns, 0) // 1000

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

    def _cancel_timer(self) -> None:
        """Stop the timer, if set."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def receive(self, timeout_s: float) -> bytes | StreamEnd | None:
        """The next response or the end of the stream, or None after ``timeout_s`` seconds."""
        raise NotImplementedError

    async def _drain(self, grace_s: float) -> None:
        """Receive and drop what a half-closed stream still sends, until it ends or
        ``grace_s`` seconds have passed (waiting on the stream's own timer)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_s
        item: bytes | StreamEnd | None = b""
        while isinstance(item, bytes) and self._waiter is None:
            item = await self.receive(deadline - loop.time())

    def _write_waits(self) -> bool:
        """True while a write waits for the bot to take it."""
        raise NotImplementedError

    def _stall(self) -> None:
        """Stop the stream of a bot that did not take a request in time."""
        raise NotImplementedError

    def _write_done(self) -> bool:
        """True when the write the timer saw waiting is no longer in question (written, or
        the stream ended)."""
        return not self._write_waits()

    def _on_timer(self) -> None:
        """At the deadline, stop a write the bot does not take, or resolve a waiting receiver
        to None; before it, wait on."""
        self._timer = None
        waiter = self._waiter
        writing = self._write_waits()
        if not writing and (waiter is None or waiter.done()):
            return
        loop = asyncio.get_running_loop()
        due = self._write_deadline if writing else self._deadline
        if loop.time() < due:
            self._timer = loop.call_at(due, self._on_timer)
        elif writing:
            loop.call_soon(self._last_write_look, LAST_LOOKS)
        elif waiter is not None:
            loop.call_soon(self._last_look, waiter, LAST_LOOKS)

    def _last_write_look(self, looks: int) -> None:
        """Past the write deadline, stop a write the bot still has not taken once the loop has
        had its turns to finish one the bot took in time while the loop was busy."""
        loop = asyncio.get_running_loop()
        if self._write_done() or loop.time() < self._write_deadline:
            return  # written, ended, or a later write with a deadline (and timer) of its own
        if looks > 1:
            loop.call_soon(self._last_write_look, looks - 1)
        else:
            self._stall()

    def _last_look(self, waiter: asyncio.Future[Item | None], looks: int) -> None:
        """Past the deadline, resolve the receiver to None once the loop has had its turns to
        hand over an answer that came in time but found it busy."""
        if waiter.done():
            return
        if looks > 1:
            asyncio.get_running_loop().call_soon(self._last_look, waiter, looks - 1)
        else:
            waiter.set_result(None)


def _identity(data: bytes) -> bytes:
    """Requests are serialized before they are queued."""
    return data


class PlayStream(StreamReceiver):
    """A bidirectional Play call on a ``grpc.aio`` channel: queued requests, written by the
    receiver, and a response reader."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        """Start the call and its reader task (needs a running event loop)."""
        super().__init__()
        self._unsent: deque[bytes | None] = deque()
        """Requests not written yet; None for the half-close."""
        self._clock = loop_clock()
        method = channel.stream_stream(PLAY_METHOD, request_serializer=_identity,
                                       response_deserializer=None)
        self._call = method()
        self._writing = False
        self._writer: asyncio.Task[object] | None = None
        """The task whose write is in progress."""
        self._unsticking = False
        """The arena cancelled the writer's wait itself (``_unstick``), not its caller."""
        self._stalled = False
        self._flooded = False
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        """Hand over every response, then the end of the stream."""
        try:
            async for raw in self._call:
                self._received += 1
                if self._received - self._asked > UNSOLICITED_LIMIT:
                    self._flood()
                    break
                self._deliver(raw, self._clock.arrival_ns())
            end = StreamEnd(grpc.StatusCode.OK, "")
        except grpc.aio.AioRpcError as error:
            end = grpc_end(error.code(), error.details() or "")
        except asyncio.CancelledError:
            end = StreamEnd(grpc.StatusCode.CANCELLED, "cancelled by the arena")
        if self._stalled or self._flooded:
            end = StreamEnd(end.code, end.details, self._stalled, self._flooded)
        self.ended = end
        self._deliver(end, time.perf_counter_ns())

    def _flood(self) -> None:
        """Stop a bot that sent more than it was asked for; drop what it sent."""
        self._flooded = True
        self._responses.clear()
        self._call.cancel()

    def send(self, payload: bytes, answered: bool = True) -> None:
        """Queue a serialized PlayRequest (the next receive writes it); ``answered``: it asks
        for one response (MatchEnd does not)."""
        self._unsent.append(payload)
        self._asked += answered

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
        return await self._await_response(loop, timeout_s)

    @property
    def idle(self) -> bool:
        """True when the stream runs with nothing unwritten, kept or awaited: it may carry the
        bot's next match."""
        return (self.ended is None and not self._unsent and not self._responses
                and self._waiter is None and self._asked == self._received)

    async def flush(self, timeout_s: float) -> None:
        """Write the queued requests (a request the bot does not take within ``timeout_s``
        seconds ends the stream as stalled)."""
        self._set_deadline(asyncio.get_running_loop(), timeout_s)
        if self._unsent:
            await self._flush()

    async def _flush(self) -> None:
        """Write the queued requests in order; a write that fails, or that the timer stops at
        the deadline, ends the call (the reader then hands over how it ended)."""
        call, unsent = self._call, self._unsent
        self._writer = asyncio.current_task()
        while unsent and self.ended is None:
            item = unsent.popleft()
            self._writing = True
            try:
                if item is None:
                    await call.done_writing()
                else:
                    handed = time.perf_counter_ns()
                    await call.write(item)
                    self.sent_ns = max(self._clock.completed_ns(), handed)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self._unsticking and task is not None:
                    self._unsticking = False
                    if task.uncancel():  # the stalled write's wait was stopped, not the task
                        raise  # unless its caller cancels it too
                elif task is not None and task.cancelling():
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

    def _write_waits(self) -> bool:
        """True while a write is in progress."""
        return self._writing

    def _write_done(self) -> bool:
        """True when no write is in progress or the call has ended."""
        return not self._writing or self._call.done()

    def _stall(self) -> None:
        """Cancel the call; its write ends as stalled (``_unstick`` wakes one gRPC left
        waiting)."""
        self._stalled = True
        self._call.cancel()
        asyncio.get_running_loop().call_later(WRITE_FLOOR_S, self._unstick)

    def _unstick(self) -> None:
        """Stop the wait of a write that the call's cancel left waiting: a call cancelled
        before gRPC sent its headers (a bot that accepted the connection and never answered
        it) never wakes its first write, so its writer task is cancelled here instead, and the
        write ends as stalled (``_flush`` tells this cancel from its caller's)."""
        writer = self._writer
        if self._writing and writer is not None and not writer.done():
            self._unsticking = True
            writer.cancel()

    async def close(self, grace_s: float) -> None:
        """Half-close, give the bot ``grace_s`` seconds to take what is queued and end its
        side (waiting as a receive does, on the stream's own timer; anything it still sends is
        dropped), then cancel."""
        self.finish()
        if grace_s > 0 and not self._reader.done():
            await self._drain(grace_s)
        self._call.cancel()
        self._cancel_timer()
        if not self._reader.done():
            self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
