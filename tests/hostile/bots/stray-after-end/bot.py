"""Says keeps_stream in Ready, plays the first legal action, and after each MatchEnd sends a
Decision nobody asked for (of the deal's first request) on the stream it offered to keep."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rawbot

from arena.protocol import PROTOCOL_VERSION
from arena.protocol.v1 import agent_pb2 as pb

READY = pb.PlayResponse(ready=pb.Ready(protocol_version=PROTOCOL_VERSION, bot_name="stray",
                                       bot_version="0.1", keeps_stream=True)).SerializeToString()


def answer(request: pb.PlayRequest, stream: rawbot.RawStream) -> None:
    """Ready (keeping the stream), the first legal action, and a stray Decision after MatchEnd."""
    which = request.WhichOneof("message")
    if which == "match_start":
        stream.send(READY)
    elif which == "decision_request":
        message = request.decision_request
        stream.first_request_id = stream.first_request_id or message.request_id
        stream.send(rawbot.decision(message.request_id, rawbot.first_legal(message)))
    elif which == "match_end":
        stream.send(rawbot.decision(stream.first_request_id, 1))
        stream.first_request_id = 0


if __name__ == "__main__":
    rawbot.serve(answer)
