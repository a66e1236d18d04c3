"""Answers its 2nd request with a Decision of 200 KB, over the arena's receive limit."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rawbot

from arena.protocol.v1 import agent_pb2 as pb

BIG_DEBUG = "x" * 200_000


def answer(request: pb.PlayRequest, stream: rawbot.RawStream) -> None:
    """The first legal action, the 2nd time with an oversized debug text."""
    if rawbot.polite(request, stream):
        message = request.decision_request
        debug = BIG_DEBUG if stream.decisions == 2 else ""
        stream.send(rawbot.decision(message.request_id, rawbot.first_legal(message), debug))


if __name__ == "__main__":
    rawbot.serve(answer)
