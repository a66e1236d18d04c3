"""PlayStream against a scripted call: buffered responses, deadlines and the request order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc

from arena.agents.stream import PlayStream, StreamEnd


class _ScriptedCall:
    """A stand-in for a Play call: responses come from a queue, requests are collected."""

    def __init__(self, requests: AsyncIterator[bytes]) -> None:
        """Consume ``requests`` as gRPC would."""
        self.responses: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.sent: list[bytes] = []
        self.half_closed = asyncio.Event()
        self._consumer = asyncio.ensure_future(self._consume(requests))

    async def _consume(self, requests: AsyncIterator[bytes]) -> None:
        """Collect every request until the half-close."""
        async for request in requests:
            self.sent.append(request)
        self.half_closed.set()

    def __aiter__(self) -> _ScriptedCall:
        """The responses."""
        return self

    async def __anext__(self) -> bytes:
        """The next response; None in the queue ends the stream."""
        item = await self.responses.get()
        if item is None:
            raise StopAsyncIteration
        return item

    def cancel(self) -> bool:
        """Stop consuming requests."""
        self._consumer.cancel()
        return True


class _Channel:
    """A channel whose Play method makes a scripted call."""

    def __init__(self) -> None:
        """No call yet."""
        self.call: _ScriptedCall | None = None

    def stream_stream(self, method: str, **_: Any) -> Any:
        """The Play method."""
        def start(requests: AsyncIterator[bytes]) -> _ScriptedCall:
            """Start the call."""
            self.call = _ScriptedCall(requests)
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
    """Requests sent before and after the call starts reading arrive in order; finish ends them."""
    async def scenario() -> None:
        """Send, read, send, finish."""
        channel = _Channel()
        stream = PlayStream(channel)  # type: ignore[arg-type]
        call = channel.call
        assert call is not None
        stream.send(b"one")
        stream.send(b"two")
        await asyncio.sleep(0)
        stream.send(b"three")
        stream.finish()
        await asyncio.wait_for(call.half_closed.wait(), 5)
        assert call.sent == [b"one", b"two", b"three"]
        call.responses.put_nowait(None)
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
