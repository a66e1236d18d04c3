"""Answers every request with bytes that are no PlayResponse."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rawbot

from arena.protocol.v1 import agent_pb2 as pb

GARBAGE = b"\xff\xffnot a protobuf\x00"


def answer(request: pb.PlayRequest, stream: rawbot.RawStream) -> None:
    """Garbage for every decision."""
    if rawbot.polite(request, stream):
        stream.send(GARBAGE)


if __name__ == "__main__":
    rawbot.serve(answer)
