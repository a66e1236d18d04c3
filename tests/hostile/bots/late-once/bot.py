"""Late once: its 2nd answer comes 2 s late; every other request is answered at once."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rawbot

from arena.protocol.v1 import agent_pb2 as pb

LATE_S = 2.0


def answer(request: pb.PlayRequest, stream: rawbot.RawStream) -> None:
    """The first legal action, the 2nd one late."""
    if rawbot.polite(request, stream):
        message = request.decision_request
        delay = LATE_S if stream.decisions == 2 else 0.0
        stream.send(rawbot.decision(message.request_id, rawbot.first_legal(message)), delay)


if __name__ == "__main__":
    rawbot.serve(answer)
