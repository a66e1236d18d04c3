"""Answers MatchStart with Ready and every decision with bytes that are no PlayResponse (a raw
gRPC server: the SDK cannot send such bytes)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from concurrent import futures

import grpc

from arena.protocol import PROTOCOL_VERSION
from arena.protocol.v1 import agent_pb2 as pb

GARBAGE = b"\xff\xffnot a protobuf\x00"
READY = pb.PlayResponse(ready=pb.Ready(protocol_version=PROTOCOL_VERSION, bot_name="garbage",
                                       bot_version="0.1.0")).SerializeToString()


def play(requests: Iterator[pb.PlayRequest], context: grpc.ServicerContext) -> Iterator[bytes]:
    """Ready, then garbage for every decision request."""
    for request in requests:
        which = request.WhichOneof("message")
        if which == "match_start":
            yield READY
        elif which == "decision_request":
            yield GARBAGE
        else:
            return


def serve() -> None:
    """Listen on ``CARDARENA_ADDRESS`` until SIGTERM."""
    handler = grpc.method_handlers_generic_handler("cardarena.v1.AgentService", {
        "Play": grpc.stream_stream_rpc_method_handler(
            play, request_deserializer=pb.PlayRequest.FromString,
            response_serializer=lambda data: data)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(os.environ["CARDARENA_ADDRESS"])
    server.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    stop.wait()
    server.stop(0.2).wait()


if __name__ == "__main__":
    serve()
