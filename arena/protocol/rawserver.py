"""A raw gRPC AgentService for hostile bots: Play answers with the bytes a function yields
(what no SDK would send), served until SIGTERM.

It runs inside a bot's container, with the base image's Python, which holds the engine and the
SDK but not the platform: hence its place here. The arena never imports it.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from typing import Any

import grpc

from arena.protocol.v1 import agent_pb2 as pb

Play = Callable[[Iterator[pb.PlayRequest], grpc.ServicerContext], Iterator[bytes]]
"""One Play stream: the bot's requests in, serialized responses (or any bytes) out."""


def listen_on_address(server: grpc.Server) -> None:
    """Listen where the arena said: ``CARDARENA_ADDRESS``."""
    server.add_insecure_port(os.environ["CARDARENA_ADDRESS"])


def serve(play: Play, *, options: Sequence[tuple[str, Any]] = (),
          listen: Callable[[grpc.Server], None] = listen_on_address) -> None:
    """Serve ``play`` as AgentService.Play (server ``options`` given), bound by ``listen``,
    until SIGTERM."""
    handler = grpc.method_handlers_generic_handler("cardarena.v1.AgentService", {
        "Play": grpc.stream_stream_rpc_method_handler(
            play, request_deserializer=pb.PlayRequest.FromString,
            response_serializer=lambda data: data)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=list(options))
    server.add_generic_rpc_handlers((handler,))
    listen(server)
    server.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    stop.wait()
    server.stop(0.2).wait()
