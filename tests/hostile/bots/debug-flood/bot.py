"""Floods: 60 KB of debug text with every decision (under the receive limit) and 256 KB of
output on stderr per decision; it plays legal actions all the same."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rawbot

from arena.protocol.v1 import agent_pb2 as pb

DEBUG = "debug " * 10_000
OUTPUT = ("log line " * 64 + "\n") * 440


def answer(request: pb.PlayRequest, stream: rawbot.RawStream) -> None:
    """The first legal action, with a flood of debug text and output."""
    if rawbot.polite(request, stream):
        message = request.decision_request
        sys.stderr.write(OUTPUT)
        sys.stderr.flush()
        stream.send(rawbot.decision(message.request_id, rawbot.first_legal(message), DEBUG))


if __name__ == "__main__":
    rawbot.serve(answer)
