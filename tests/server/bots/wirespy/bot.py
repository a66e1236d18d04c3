"""A wire spy: a bot that keeps every message the arena sends it, byte for byte.

Every PlayRequest is appended as a line of hex to ``OUT/PID.log``. At its second
DecisionRequest (one play at least has been made), an instance writes ``OUT/waiting`` and holds
its answer until ``OUT/release`` exists, so that a test can look at everything a user can see
while the match is running. It plays the first legal action.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from cardarena_sdk import Bot, Request, serve
from cardarena_sdk import server as sdk_server

from arena.protocol.v1 import agent_pb2 as pb

POLL_S = 0.02
"""How often a held answer looks for the release file."""


def options() -> argparse.Namespace:
    """The command line: where to write."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    return parser.parse_args()


OUT = Path(options().out)


def keep(message: pb.PlayRequest) -> None:
    """Append one message, as hex, to this process's log."""
    with (OUT / f"{os.getpid()}.log").open("a", encoding="ascii") as log:
        log.write(message.SerializeToString().hex() + "\n")


def hold() -> None:
    """Say so, and wait for the test to release the bot (at once once it was)."""
    if (OUT / "release").exists():
        return
    (OUT / "waiting").touch()
    while not (OUT / "release").exists():
        time.sleep(POLL_S)


HANDLE = sdk_server.Session.handle


def handle(self: sdk_server.Session, message: pb.PlayRequest) -> pb.PlayResponse | bytes | None:
    """The SDK's answer to a message of a stream (either server's), the message kept first;
    the stream's second DecisionRequest held until the release."""
    keep(message)
    if message.WhichOneof("message") == "decision_request":
        decisions = getattr(self, "spied_decisions", 0) + 1
        self.spied_decisions = decisions  # type: ignore[attr-defined]
        if decisions == 2:
            hold()
    return HANDLE(self, message)


sdk_server.Session.handle = handle  # type: ignore[method-assign]


class WireSpy(Bot):
    """Plays the first legal action."""

    name = "wirespy"
    version = "1.0.0"

    def act(self, request: Request) -> int:
        """The first legal action."""
        return request.legal_actions[0].id


if __name__ == "__main__":
    serve(WireSpy)
