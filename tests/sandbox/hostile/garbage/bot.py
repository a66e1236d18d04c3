"""Answers MatchStart with Ready and every decision with bytes that are no PlayResponse (a raw
gRPC server, ``rawserver``: the SDK cannot send such bytes)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc

from arena.protocol import PROTOCOL_VERSION, rawserver
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


if __name__ == "__main__":
    rawserver.serve(play)
