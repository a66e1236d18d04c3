"""Play streams through the compiled transport (``cardarena_wire``, built from ``wire/``).

The ``grpc.aio`` stream (``arena.agents.stream.PlayStream``) is the reference; this one does
the same job with far less of the arena's CPU: tonic, on one Tokio thread of the process that
never takes the GIL, runs the HTTP/2 connections and calls, and the event loop hears of what
happened through one eventfd per loop (``_Hub``), however many responses came since it last
looked. A request is handed over without waiting (the transport writes it when the bot's
flow-control window lets it), so a round trip costs the loop one event, not a write's
completion and a read's.

The rules are the reference's, through ``StreamReceiver``:

- a request the bot does not take by the write deadline (at least ``WRITE_FLOOR_S`` from
  when it was asked for) stops the stream as ``stalled``;
- more than ``UNSOLICITED_LIMIT`` responses beyond those asked for stop it as ``flooded``
  (counted on the Tokio side, which stops reading at once, so a flood never queues up);
- a response message larger than the channel's limit, and header or trailer metadata larger
  than ``MAX_METADATA_BYTES``, end it with the ``oversized`` flags (gzip and deflate
  responses are inflated up to the same limit, as gRPC does);
- the clock: ``sent_ns`` is when the transport took the request the response answers, and
  ``arrived_ns`` when the response was read off the connection, both on the clock of
  ``time.perf_counter_ns``, so the loop's lag is left out of what a bot is charged.

``CARDARENA_TRANSPORT`` chooses (``arena.agents.transport``): ``auto`` (this one when it is
built, the default), ``native`` (fail when it is not) or ``grpc`` (the reference).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import grpc

from arena.agents.stream import (
    UNSOLICITED_LIMIT,
    StreamEnd,
    StreamReceiver,
)

try:
    import cardarena_wire as _wire
except ImportError:  # not built: the reference transport serves
    _wire_module: ModuleType | None = None
else:
    _wire_module = _wire

STATUS_CODES = {code.value[0]: code for code in grpc.StatusCode}
"""gRPC's status codes by number."""


def built() -> bool:
    """True when the compiled transport can be imported."""
    return _wire_module is not None


def _module() -> ModuleType:
    """The compiled transport, or an error saying how to build it."""
    if _wire_module is None:
        raise RuntimeError("the compiled transport cardarena_wire is not installed: "
                           "pip install ./wire (needs cargo), or set CARDARENA_TRANSPORT=grpc")
    return _wire_module


class _Hub:
    """One event loop's share of the transport: its channels and streams, and the reader of
    its events."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        """A hub whose events the loop reads when its eventfd is readable."""
        module = _module()
        self.wire: Any = module.Hub()
        self.streams: dict[int, NativeStream] = {}
        self.channels: dict[int, NativeChannel] = {}
        self._kinds = (module.RESPONSE, module.END, module.TAKEN, module.READY)
        loop.add_reader(self.wire.fileno(), self._on_events)

    def _on_events(self) -> None:
        """Hand every event to its stream or channel."""
        response, end, taken, ready = self._kinds
        streams = self.streams
        for kind, ident, value, ns, sent_ns in self.wire.take_events():
            if kind == response:
                stream = streams.get(ident)
                if stream is not None:
                    stream.on_response(value, ns, sent_ns)
            elif kind == end:
                self.wire.forget(ident)
                stream = streams.pop(ident, None)
                if stream is not None:
                    stream.on_end(*value, ns)
            elif kind == taken:
                stream = streams.get(ident)
                if stream is not None:
                    stream.on_taken()
            elif kind == ready:
                channel = self.channels.get(ident)
                if channel is not None:
                    channel.on_ready(value)


_HUBS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Hub] = weakref.WeakKeyDictionary()
"""Each live loop's hub (a hub holds no reference to its loop, so a loop that is gone takes
its hub with it: its streams stopped, its eventfd closed)."""


def _hub() -> _Hub:
    """The running loop's hub, made on first use."""
    loop = asyncio.get_running_loop()
    hub = _HUBS.get(loop)
    if hub is None:
        hub = _HUBS[loop] = _Hub(loop)
    return hub


class NativeChannel:
    """A connection to one bot, made by the transport (trying again until it is closed)."""

    def __init__(self, target: str, max_message_bytes: int, max_metadata_bytes: int,
                 backoff_ms: Sequence[int]) -> None:
        """Start connecting to ``target`` (``unix:PATH`` or ``HOST:PORT``); needs a running
        loop."""
        hub = self.hub = _hub()
        first, longest = backoff_ms
        self.id: int = hub.wire.connect(target, max_message_bytes, max_metadata_bytes,
                                        (first, longest))
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        hub.channels[self.id] = self

    def on_ready(self, value: object) -> None:
        """The transport connected (``value``: the connection) or gave up (its error)."""
        self.hub.channels.pop(self.id, None)
        if self._ready.done():
            return
        if isinstance(value, str):
            self._ready.set_exception(ConnectionError(value))
        else:
            self.hub.wire.adopt(self.id, value)
            self._ready.set_result(None)

    async def channel_ready(self) -> None:
        """Wait until the channel has connected."""
        await asyncio.shield(self._ready)

    async def close(self) -> None:
        """Stop connecting and drop the connection (its streams are stopped first)."""
        self.hub.channels.pop(self.id, None)
        self.hub.wire.close_channel(self.id)
        if not self._ready.done():
            self._ready.cancel()


class NativeStream(StreamReceiver):
    """A bidirectional Play call run by the compiled transport."""

    def __init__(self, channel: NativeChannel) -> None:
        """Start the call on a connected channel."""
        super().__init__()
        hub = self._hub = channel.hub
        self._wire = hub.wire
        self.id: int = hub.wire.open_stream(channel.id, UNSOLICITED_LIMIT)
        hub.streams[self.id] = self
        self._flusher: asyncio.Future[None] | None = None

    # --- events ------------------------------------------------------------------------

    def on_response(self, data: bytes, arrived_ns: int, sent_ns: int) -> None:
        """A response read at ``arrived_ns``, its request taken at ``sent_ns``."""
        self._received += 1
        self.sent_ns = sent_ns
        self._deliver(data, arrived_ns)

    def on_end(self, code: int, details: str, flags: int, ended_ns: int) -> None:
        """The call ended with a status (and the transport's flags)."""
        module = _module()
        flooded = bool(flags & module.FLOODED)
        if flooded:
            self._responses.clear()
        self._end(StreamEnd(STATUS_CODES.get(code, grpc.StatusCode.UNKNOWN), details,
                            flooded=flooded,
                            oversized_message=bool(flags & module.OVERSIZED_MESSAGE),
                            oversized_metadata=bool(flags & module.OVERSIZED_METADATA)),
                  ended_ns)

    def on_taken(self) -> None:
        """Every request queued has been taken."""
        flusher = self._flusher
        if flusher is not None and not flusher.done():
            flusher.set_result(None)

    def _end(self, end: StreamEnd, ended_ns: int) -> None:
        """Note the end and hand it over (once)."""
        if self.ended is not None:
            return
        self.ended = end
        self._hub.streams.pop(self.id, None)
        self._deliver(end, ended_ns)
        self.on_taken()

    # --- the stream ----------------------------------------------------------------------

    def send(self, payload: bytes, answered: bool = True) -> None:
        """Hand a serialized PlayRequest to the transport; ``answered``: it asks for one
        response (MatchEnd does not)."""
        self._asked += answered
        self._wire.write(self.id, payload, answered)

    def finish(self) -> None:
        """Half-close: no more requests."""
        self._wire.done_writing(self.id)

    async def receive(self, timeout_s: float) -> bytes | StreamEnd | None:
        """The next response or the end of the stream, or None after ``timeout_s`` seconds
        (a request the bot has not taken by the write deadline stops the stream)."""
        loop = asyncio.get_running_loop()
        self._set_deadline(loop, timeout_s)
        if timeout_s <= 0 and not self._responses:
            await self._flush()
        return await self._await_response(loop, timeout_s)

    @property
    def idle(self) -> bool:
        """True when the stream runs with nothing untaken, kept or awaited: it may carry the
        bot's next match."""
        return (self.ended is None and not self._responses and self._waiter is None
                and self._asked == self._received and self._wire.unsent(self.id) == 0)

    async def flush(self, timeout_s: float) -> None:
        """Wait until the transport has taken every request (one the bot does not take within
        ``timeout_s`` seconds ends the stream as stalled)."""
        self._set_deadline(asyncio.get_running_loop(), timeout_s)
        await self._flush()

    async def _flush(self) -> None:
        """Wait for the taken event, unless every request is taken or the stream ended."""
        if self.ended is not None or self._wire.watch_taken(self.id):
            return
        flusher = self._flusher = asyncio.get_running_loop().create_future()
        try:
            await flusher
        finally:
            self._flusher = None

    def _write_waits(self) -> bool:
        """True while a receive or a flush waits on a request the bot has not taken."""
        waiting = ((self._waiter is not None and not self._waiter.done())
                   or (self._flusher is not None and not self._flusher.done()))
        return waiting and self.ended is None and self._wire.unsent(self.id) > 0

    def _stall(self) -> None:
        """Stop the call of a bot that did not take a request in time."""
        self._wire.cancel(self.id)
        self._end(StreamEnd(grpc.StatusCode.CANCELLED, "cancelled by the arena", stalled=True),
                  time.perf_counter_ns())

    async def close(self, grace_s: float) -> None:
        """Half-close, give the bot ``grace_s`` seconds to take what is queued and end its
        side (anything it still sends is dropped), then cancel."""
        self.finish()
        if grace_s > 0 and self.ended is None:
            await self._drain(grace_s)
        self._wire.cancel(self.id)
        self._cancel_timer()
        self._end(StreamEnd(grpc.StatusCode.CANCELLED, "cancelled by the arena"),
                  time.perf_counter_ns())
