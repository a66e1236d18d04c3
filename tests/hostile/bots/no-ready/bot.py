"""Never answers MatchStart with Ready (it would answer decisions, were it asked)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rawbot

from arena.protocol.v1 import agent_pb2 as pb


def answer(request: pb.PlayRequest, stream: rawbot.RawStream) -> None:
    """Silence at MatchStart; the first legal action to any request."""
    if request.WhichOneof("message") == "decision_request":
        message = request.decision_request
        stream.send(rawbot.decision(message.request_id, rawbot.first_legal(message)))


if __name__ == "__main__":
    rawbot.serve(answer)
