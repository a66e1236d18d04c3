"""PlayStream against a scripted call: buffered responses, deadlines, writes and stalls."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from arena.agents.stream import PlayStream, StreamEnd


class _ScriptedCall:
    """A stand-in for a Play call: responses come from a queue, written requests are collected;
    with ``stall`` set, a write waits until the call is cancelled."""

    def __init__(self) -> None:
        """No request yet."""
        self.responses: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.sent: list[bytes] = []
        self.half_closed = asyncio.Event()
        self.stall = False
        self.cancelled = asyncio.Event()

    async def write(self, request: bytes) -> None:
        """Take a request (or, stalling, wait for the cancel and fail as gRPC does)."""
        if self.stall:
            await self.cancelled.wait()
            raise asyncio.CancelledError
        self.sent.append(request)

    async def done_writing(self) -> None:
        """The half-close."""
        self.half_closed.set()

    def done(self) -> bool:
        """True once cancelled."""
        return self.cancelled.is_set()

    def __aiter__(self) -> _ScriptedCall:
        """The responses."""
        return self

    async def __anext__(self) -> bytes:
        """The next response; None in the queue ends the stream, a cancel breaks it."""
        getting = asyncio.ensure_future(self.responses.get())
        cancelled = asyncio.ensure_future(self.cancelled.wait())
        await asyncio.wait({getting, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        if not getting.done():
            getting.cancel()
            raise asyncio.CancelledError
        cancelled.cancel()
        item = getting.result()
        if item is None:
            raise StopAsyncIteration
        return item

    def cancel(self) -> bool:
        """Break the call."""
        self.cancelled.set()
        return True


class _Channel:
    """A channel whose Play method makes a scripted call."""

    def __init__(self) -> None:
        """No call yet."""
        self.call: _ScriptedCall | None = None

    def stream_stream(self, method: str, **_: Any) -> Any:
        """The Play method."""
        def start() -> _ScriptedCall:
            """Start the call."""
            self.call = _ScriptedCall()
            return self.call
        return start


def test_a_late_response_is_kept_for_the_next_receive() -> None:
    """A receive that times out gets None; the answer that comes later is not lost."""
    async def scenario() -> None:
        """Time out, then answer."""
        channel = _Channel()
        stream = PlayStream(channel)  # type: ignore[arg-type]
        assert channel.call is not None
        assert await stream.receive(0.01) is None
        assert await stream.receive(0) is None
        channel.call.responses.put_nowait(b"late")
        channel.call.responses.put_nowait(b"next")
        assert await stream.receive(5) == b"late"
        assert await stream.receive(5) == b"next"
        channel.call.responses.put_nowait(None)
        assert await stream.receive(5) == StreamEnd(grpc.StatusCode.OK, "")
        assert stream.ended == StreamEnd(grpc.StatusCode.OK, "")
        await stream.close(0)

    asyncio.run(scenario())


def test_a_cancelled_receive_loses_no_response() -> None:
    """Cancelling a waiting receive leaves the stream readable and the answer buffered."""
    async def scenario() -> None:
        """Cancel a receive, then answer."""
        channel = _Channel()
        stream = PlayStream(channel)  # type: ignore[arg-type]
        assert channel.call is not None
        waiting = asyncio.ensure_future(stream.receive(5))
        await asyncio.sleep(0)
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        channel.call.responses.put_nowait(b"answer")
        assert await stream.receive(5) == b"answer"
        await stream.close(0)

    asyncio.run(scenario())


def test_requests_go_out_in_order_until_the_half_close() -> None:
    """Queued requests are written, in order, by the next receive; close writes the rest and
    the half-close."""
    async def scenario() -> None:
        """Send two, receive, send one more, close."""
        channel = _Channel()
        stream = PlayStream(channel)  # type: ignore[arg-type]
        call = channel.call
        assert call is not None
        stream.send(b"one")
        stream.send(b"two")
        assert call.sent == []
        call.responses.put_nowait(b"answer")
        assert await stream.receive(5) == b"answer"
        assert call.sent == [b"one", b"two"]
        stream.send(b"three")
        call.responses.put_nowait(None)
        await stream.close(1)
        assert call.sent == [b"one", b"two", b"three"]
        assert call.half_closed.is_set()

    asyncio.run(scenario())


def test_a_request_the_bot_does_not_take_stops_the_stream_at_the_deadline() -> None:
    """A write still pending at the deadline cancels the call; the receive gets the end of the
    stream marked stalled, and the stream takes nothing more."""
    async def scenario() -> None:
        """Stall the first write."""
        channel = _Channel()
        stream = PlayStream(channel)  # type: ignore[arg-type]
        call = channel.call
        assert call is not None
        call.stall = True
        stream.send(b"request")
        end = await asyncio.wait_for(stream.receive(0.2), 5)
        assert isinstance(end, StreamEnd) and end.stalled
        assert end.describe() == "did not take a request in time"
        assert call.cancelled.is_set() and call.sent == []
        assert stream.ended == end
        await stream.close(1)

    asyncio.run(scenario())


def test_an_answered_receive_leaves_no_stale_deadline() -> None:
    """The timer outlives an answer: a later, longer wait is not cut at the earlier deadline,
    and a later, shorter one still ends at its own."""
    async def scenario() -> None:
        """Answer at once; answer after the first deadline; never answer."""
        channel = _Channel()
        stream = PlayStream(channel)  # type: ignore[arg-type]
        call = channel.call
        assert call is not None
        loop = asyncio.get_running_loop()
        call.responses.put_nowait(b"at once")
        assert await stream.receive(0.05) == b"at once"
        loop.call_later(0.2, call.responses.put_nowait, b"after the first deadline")
        assert await stream.receive(10) == b"after the first deadline"
        assert await asyncio.wait_for(stream.receive(0.05), 5) is None
        call.responses.put_nowait(None)
        await stream.close(1)

    asyncio.run(scenario())


async def _silent_listener(path: str) -> asyncio.Server:
    """A Unix socket server that accepts every connection and never says a word: a bot that
    took the connection and does not answer its HTTP/2 handshake."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Keep the connection open, silent."""
        held.append(writer)

    return await asyncio.start_unix_server(hold, path)


def test_a_first_request_to_a_connection_never_answered_ends_as_stalled(tmp_path: Any) -> None:
    """Real gRPC: a call cancelled before its headers went out never wakes its first write;
    the stream still ends at the deadline, stalled, instead of waiting for ever."""
    from arena.agents.remote import channel_options

    async def scenario() -> None:
        """MatchStart's write to a bot that never answers its connection."""
        path = str(tmp_path / "silent.sock")
        server = await _silent_listener(path)
        channel = grpc.aio.insecure_channel(f"unix:{path}", options=channel_options(1 << 16))
        try:
            stream = PlayStream(channel)
            stream.send(b"\x0a\x00")
            end = await asyncio.wait_for(stream.receive(0.3), 10)
            assert isinstance(end, StreamEnd) and end.stalled, end
            assert stream.ended == end
            await stream.close(0)
        finally:
            await channel.close()
            server.close()

    asyncio.run(scenario())


def test_the_caller_s_cancel_of_a_waiting_write_still_cancels_it(tmp_path: Any) -> None:
    """Real gRPC: cancelling the task that waits on a write to a silent connection raises
    CancelledError in it, before and after the deadline's own stop of the write."""
    from arena.agents.remote import channel_options

    async def scenario(cancel_after_s: float) -> None:
        """Cancel the receiver ``cancel_after_s`` into a receive with a 0.2 s deadline."""
        path = str(tmp_path / f"silent-{cancel_after_s}.sock")
        server = await _silent_listener(path)
        channel = grpc.aio.insecure_channel(f"unix:{path}", options=channel_options(1 << 16))
        try:
            stream = PlayStream(channel)
            stream.send(b"\x0a\x00")
            receiving = asyncio.ensure_future(stream.receive(0.2))
            await asyncio.sleep(cancel_after_s)
            receiving.cancel()
            try:
                await asyncio.wait_for(receiving, 10)
            except asyncio.CancelledError:
                pass
            else:
                assert cancel_after_s > 0.2  # it ended as stalled first
                assert isinstance(receiving.result(), StreamEnd)
            assert receiving.done()
            await stream.close(0)
        finally:
            await channel.close()
            server.close()

    asyncio.run(scenario(0.05))
    asyncio.run(scenario(0.25))
