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
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

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


async def spied(messages: AsyncIterator[pb.PlayRequest]) -> AsyncIterator[pb.PlayRequest]:
    """The stream's messages, each kept before the bot sees it."""
    decisions = 0
    async for message in messages:
        keep(message)
        if message.WhichOneof("message") == "decision_request":
            decisions += 1
            if decisions == 2:
                hold()
        yield message


PLAY = sdk_server.AgentServicer.Play


async def play(self: sdk_server.AgentServicer, messages: AsyncIterator[pb.PlayRequest],
               context: Any) -> AsyncIterator[pb.PlayResponse | bytes]:
    """The SDK's Play over the spied messages."""
    async for response in PLAY(self, spied(messages), context):
        yield response


sdk_server.AgentServicer.Play = play  # type: ignore[method-assign]


class WireSpy(Bot):
    """Plays the first legal action."""

    name = "wirespy"
    version = "1.0.0"

    def act(self, request: Request) -> int:
        """The first legal action."""
        return request.legal_actions[0].id


if __name__ == "__main__":
    serve(WireSpy)
