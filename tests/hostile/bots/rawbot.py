"""A raw gRPC server for hostile test bots that the SDK cannot express.

Each bot gives a function called for every PlayRequest of a stream with that stream's
``RawStream``; it answers with ``stream.send(bytes)``, at once or after a delay, so that a late
answer never holds up the next one. The bot listens on ``CARDARENA_ADDRESS`` until SIGTERM,
then stops and removes its socket, as a well-behaved bot does.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable

import grpc

from arena.protocol import PROTOCOL_VERSION
from arena.protocol.v1 import agent_pb2 as pb


class RawStream:
    """One Play stream: the number of decision requests so far and a queue of raw answers."""

    def __init__(self) -> None:
        """A new stream, nothing asked yet."""
        self.decisions = 0
        self.first_request_id = 0
        self.answers: asyncio.Queue[bytes | None] = asyncio.Queue()

    def send(self, data: bytes, delay_s: float = 0.0) -> None:
        """Send raw bytes now or after ``delay_s`` seconds."""
        if delay_s:
            asyncio.get_running_loop().call_later(delay_s, self.answers.put_nowait, data)
        else:
            self.answers.put_nowait(data)


Answer = Callable[[pb.PlayRequest, RawStream], None]


def ready(version: str = PROTOCOL_VERSION) -> bytes:
    """A serialized Ready."""
    return pb.PlayResponse(ready=pb.Ready(protocol_version=version, bot_name="raw",
                                          bot_version="0.1")).SerializeToString()


def decision(request_id: int, action_id: int, debug: str = "") -> bytes:
    """A serialized Decision."""
    return pb.PlayResponse(decision=pb.Decision(request_id=request_id, action_id=action_id,
                                                debug=debug)).SerializeToString()


def first_legal(request: pb.DecisionRequest) -> int:
    """The wire id of the request's first legal action."""
    return request.legal_actions[0].id


def polite(request: pb.PlayRequest, stream: RawStream) -> bool:
    """Answer MatchStart with Ready; True when the request was a DecisionRequest to handle."""
    which = request.WhichOneof("message")
    if which == "match_start":
        stream.send(ready())
        return False
    if which == "decision_request":
        stream.decisions += 1
        if stream.decisions == 1:
            stream.first_request_id = request.decision_request.request_id
        return True
    return False


def serve(answer: Answer) -> None:
    """Listen on ``CARDARENA_ADDRESS`` and answer every stream with ``answer`` until SIGTERM."""
    asyncio.run(_serve(answer))


async def _serve(answer: Answer) -> None:
    """The server's life."""

    async def play(requests: AsyncIterator[pb.PlayRequest],
                   context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        """Feed the requests to ``answer`` and send what it queues."""
        stream = RawStream()

        async def pump() -> None:
            """Handle every request, then end the answers."""
            async for request in requests:
                answer(request, stream)
            stream.answers.put_nowait(None)

        task = asyncio.create_task(pump())
        try:
            while (data := await stream.answers.get()) is not None:
                yield data
        finally:
            task.cancel()

    handler = grpc.method_handlers_generic_handler("cardarena.v1.AgentService", {
        "Play": grpc.stream_stream_rpc_method_handler(
            play, request_deserializer=pb.PlayRequest.FromString,
            response_serializer=lambda data: data)})
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    address = os.environ["CARDARENA_ADDRESS"]
    server.add_insecure_port(address)
    await server.start()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await server.stop(0.2)
    path = address.removeprefix("unix:")
    if path != address and os.path.exists(path):
        os.unlink(path)
