"""One Play stream to a bot: requests go out through a queue, a task reads the responses.

Reads never run under a deadline of their own (cancelling a gRPC read cancels the whole
call): the reader task puts every response, then the end of the stream, into a queue, and
waiting for an answer is waiting on that queue. Responses stay raw bytes so that a message
that does not parse is the bot's fault, not a broken stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
from google.protobuf.message import DecodeError

from arena.agents.base import Reply
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


class PlayStream:
    """A bidirectional Play call on a channel, with queued requests and a response reader."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        """Start the call and its reader task (needs a running event loop)."""
        self._requests: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._responses: asyncio.Queue[bytes | StreamEnd] = asyncio.Queue()
        method = channel.stream_stream(PLAY_METHOD, request_serializer=_identity,
                                       response_deserializer=None)
        self._call = method(self._outgoing())
        self.ended: StreamEnd | None = None
        self._reader = asyncio.create_task(self._read())

    async def _outgoing(self) -> AsyncIterator[bytes]:
        """The requests, until ``finish`` half-closes the stream."""
        while True:
            item = await self._requests.get()
            if item is None:
                return
            yield item

    async def _read(self) -> None:
        """Queue every response, then the end of the stream."""
        try:
            async for raw in self._call:
                self._responses.put_nowait(raw)
            end = StreamEnd(grpc.StatusCode.OK, "")
        except grpc.aio.AioRpcError as error:
            end = StreamEnd(error.code(), error.details() or "")
        except asyncio.CancelledError:
            end = StreamEnd(grpc.StatusCode.CANCELLED, "cancelled by the arena")
        self.ended = end
        self._responses.put_nowait(end)

    def send(self, payload: bytes) -> None:
        """Queue a serialized PlayRequest."""
        self._requests.put_nowait(payload)

    def finish(self) -> None:
        """Half-close: no more requests."""
        self._requests.put_nowait(None)

    async def receive(self, timeout_s: float) -> bytes | StreamEnd | None:
        """The next response or the end of the stream, or None after ``timeout_s`` seconds."""
        if timeout_s <= 0:
            try:
                return self._responses.get_nowait()
            except asyncio.QueueEmpty:
                return None
        try:
            return await asyncio.wait_for(self._responses.get(), timeout_s)
        except TimeoutError:
            return None

    async def close(self, grace_s: float) -> None:
        """Half-close, give the bot ``grace_s`` seconds to end its side, then cancel."""
        self.finish()
        if grace_s > 0 and not self._reader.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._reader), grace_s)
        self._call.cancel()
        if not self._reader.done():
            self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


def parse_reply(raw: bytes) -> Reply:
    """A bot's response to a DecisionRequest; anything but a Decision is marked malformed."""
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
