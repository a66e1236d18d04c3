"""A raw gRPC AgentService for hostile bots: Play answers with the bytes a function yields
(what no SDK would send), served until SIGTERM.

It runs inside a bot's container, with the base image's Python, which holds the engine and the
SDK but not the platform: hence its place here. The arena never imports it.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from typing import Any

import grpc

from arena.protocol.v1 import agent_pb2 as pb

Play = Callable[[Iterator[pb.PlayRequest], grpc.ServicerContext], Iterator[bytes]]
"""One Play stream: the bot's requests in, serialized responses (or any bytes) out."""
STOP_WAIT_S = 1.0
"""How long a stopping server waits for its streams before the process ends regardless."""


def listen_on_address(server: grpc.Server) -> None:
    """Listen where the arena said: ``CARDARENA_ADDRESS``."""
    server.add_insecure_port(os.environ["CARDARENA_ADDRESS"])


def serve(play: Play, *, options: Sequence[tuple[str, Any]] = (),
          listen: Callable[[grpc.Server], None] = listen_on_address) -> None:
    """Serve ``play`` as AgentService.Play (server ``options`` given), bound by ``listen``,
    until SIGTERM, then end the process.

    SIGTERM is blocked before any server thread starts and taken by ``sigwait``: no handler
    runs at an awkward moment, and the process ends (``os._exit``) even while a hostile
    stream's handler thread is still stuck.
    """
    handler = grpc.method_handlers_generic_handler("cardarena.v1.AgentService", {
        "Play": grpc.stream_stream_rpc_method_handler(
            play, request_deserializer=pb.PlayRequest.FromString,
            response_serializer=lambda data: data)})
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=list(options))
    server.add_generic_rpc_handlers((handler,))
    listen(server)
    server.start()
    signal.sigwait({signal.SIGTERM})
    server.stop(0.2).wait(STOP_WAIT_S)
    os._exit(0)
