"""Answers every request after its first with the id of its first request (a stale id)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rawbot

from arena.protocol.v1 import agent_pb2 as pb


def answer(request: pb.PlayRequest, stream: rawbot.RawStream) -> None:
    """A legal action with the first request's id."""
    if rawbot.polite(request, stream):
        message = request.decision_request
        stream.send(rawbot.decision(stream.first_request_id, rawbot.first_legal(message)))


if __name__ == "__main__":
    rawbot.serve(answer)
