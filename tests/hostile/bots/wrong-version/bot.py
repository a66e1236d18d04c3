"""Speaks another protocol version: answers MatchStart with Ready for cardarena.v0."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rawbot

from arena.protocol.v1 import agent_pb2 as pb


def answer(request: pb.PlayRequest, stream: rawbot.RawStream) -> None:
    """Ready with the wrong version; the first legal action to any request."""
    if request.WhichOneof("message") == "match_start":
        stream.send(rawbot.ready("cardarena.v0"))
    elif request.WhichOneof("message") == "decision_request":
        message = request.decision_request
        stream.send(rawbot.decision(message.request_id, rawbot.first_legal(message)))


if __name__ == "__main__":
    rawbot.serve(answer)
