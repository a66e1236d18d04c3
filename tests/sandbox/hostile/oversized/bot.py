"""Answers its 2nd decision with a 200 KB Decision, over the arena's receive limit (a raw gRPC
server, ``rawserver``: the SDK caps debug text)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc

from arena.protocol import PROTOCOL_VERSION, rawserver
from arena.protocol.v1 import agent_pb2 as pb

BIG_DEBUG = "x" * 200_000
READY = pb.PlayResponse(ready=pb.Ready(protocol_version=PROTOCOL_VERSION, bot_name="oversized",
                                       bot_version="0.1.0")).SerializeToString()


def decision(request: pb.DecisionRequest, debug: str) -> bytes:
    """A serialized Decision for the request's first legal action."""
    return pb.PlayResponse(decision=pb.Decision(
        request_id=request.request_id, action_id=request.legal_actions[0].id,
        debug=debug)).SerializeToString()


def play(requests: Iterator[pb.PlayRequest], context: grpc.ServicerContext) -> Iterator[bytes]:
    """Ready, then the first legal action, with an oversized debug text the 2nd time."""
    decisions = 0
    for request in requests:
        which = request.WhichOneof("message")
        if which == "match_start":
            yield READY
        elif which == "decision_request":
            decisions += 1
            yield decision(request.decision_request, BIG_DEBUG if decisions == 2 else "")
        else:
            return


if __name__ == "__main__":
    rawserver.serve(play)
