"""A bot's gRPC server on ``grpc.aio``, used when the compiled transport is not installed or
``CARDARENA_TRANSPORT=grpc`` asks for it; imported only then, so a bot served by the compiled
transport never imports grpc."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, TypeVar

import grpc

from arena.protocol.schema import agent as pb
from arena.protocol.schema import agent_grpc
from cardarena_sdk.address import Address, AddressError
from cardarena_sdk.answer import serialize_response
from cardarena_sdk.session import Session, StreamAborted

T = TypeVar("T")

SERVICE = pb.DESCRIPTOR.services_by_name["AgentService"].full_name
"""The gRPC service a bot serves, "cardarena.v1.AgentService"."""


class AgentServicer(agent_grpc.AgentServiceServicer):
    """Plays each Play stream with a session of its own (a fresh Bot per match)."""

    def __init__(self, session: Callable[[], Session]) -> None:
        """Make each stream's session with ``session``."""
        self.session = session

    async def Play(self, request_iterator: AsyncIterator[pb.PlayRequest],
                   context: grpc.aio.ServicerContext[pb.PlayRequest, bytes]
                   ) -> AsyncIterator[pb.PlayResponse | bytes]:
        """Answer MatchStart with Ready and each DecisionRequest with a Decision (as bytes);
        after MatchEnd, wait for the next match on the stream (a fresh Bot) until the arena
        closes its side (Ready says ``keeps_stream``)."""
        session = self.session()
        try:
            async for message in request_iterator:
                answer = session.handle(message)
                if answer is not None:
                    yield answer
        except StreamAborted as aborted:
            await context.abort(grpc.StatusCode[aborted.code.name], aborted.details)


def add_servicer(servicer: AgentServicer, server: grpc.aio.Server) -> None:
    """Serve AgentService's Play with ``servicer``, Decisions sent as the bytes it made."""
    handlers = {"Play": grpc.stream_stream_rpc_method_handler(
        servicer.Play, request_deserializer=pb.PlayRequest.FromString,
        response_serializer=serialize_response)}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))


async def listen(session: Callable[[], Session], address: Address
                 ) -> tuple[grpc.aio.Server, int]:
    """A started ``grpc.aio`` server at ``address`` and the port it bound."""
    options = [] if address.is_unix else [("grpc.so_reuseport", 0)]
    server = grpc.aio.server(options=options)
    add_servicer(AgentServicer(session), server)
    try:
        port = server.add_insecure_port(address.target)
    except RuntimeError as exc:
        await server.stop(None)
        raise AddressError(f"cannot listen on {address.target}: {exc}") from None
    if port == 0:
        await server.stop(None)
        raise AddressError(f"cannot listen on {address.target}: the address is in use "
                           "or not available")
    await server.start()
    return server, port


class _ServingLoop:
    """The event loop, in a daemon thread of its own, that serves the process's BotServers."""

    def __init__(self) -> None:
        """No loop until one is needed."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def loop(self) -> asyncio.AbstractEventLoop:
        """The running loop, started on first use."""
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="cardarena-sdk-server",
                                 daemon=True).start()
                self._loop = loop
            return self._loop

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop()).result()


SERVING_LOOP = _ServingLoop()
"""The one serving loop of this process."""


class GrpcServer:
    """A ``grpc.aio`` server of a bot's streams, on the serving loop."""

    def __init__(self, session: Callable[[], Session]) -> None:
        """Serve each stream with a session from ``session``."""
        self.session = session
        self._server: grpc.aio.Server | None = None

    def listen(self, address: Address) -> int:
        """Listen at ``address`` and serve; the TCP port bound."""
        self._server, port = SERVING_LOOP.run(listen(self.session, address))
        return port

    def stop(self, grace: float | None) -> None:
        """Stop serving; open streams get ``grace`` seconds."""
        if self._server is not None:
            SERVING_LOOP.run(self._server.stop(grace))

    def wait(self) -> None:
        """Block until the server stops."""
        if self._server is not None:
            SERVING_LOOP.run(self._server.wait_for_termination())
