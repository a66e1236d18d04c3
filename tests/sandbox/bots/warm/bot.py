"""A bot for the tests of kept containers: it names itself and each stream on standard error,
and, when told, holds more memory with each stream or exits in a given stream.

    warm INSTANCE stream N        (at each stream's first request)

``--grow-mb M`` keeps M MiB more (written, so resident) at each stream; ``--crash-stream K``
exits with status 3 at the first request of stream K. It plays the first legal action.
"""

from __future__ import annotations

import argparse
import os
import sys

from cardarena_sdk import Bot, MatchInfo, Request, serve

INSTANCE = os.urandom(8).hex()
"""This process's name in the report."""

HELD: list[bytes] = []
"""The memory the bot holds on to."""


def options() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--grow-mb", type=int, default=0)
    parser.add_argument("--crash-stream", type=int, default=0)
    return parser.parse_args()


OPTIONS = options()


class WarmBot(Bot):
    """Plays the first legal action and names its stream."""

    name = "warm"
    version = "1.0.0"
    streams = 0

    def on_match_start(self, match: MatchInfo) -> None:
        """A new stream: named at its first request."""
        WarmBot.streams += 1
        self.stream = WarmBot.streams
        self.named = False

    def act(self, request: Request) -> int:
        """Name the stream (and grow, or exit) at its first request, then play."""
        if not self.named:
            self.named = True
            sys.stderr.write(f"warm {INSTANCE} stream {self.stream}\n")
            sys.stderr.flush()
            if self.stream == OPTIONS.crash_stream:
                os._exit(3)
            if OPTIONS.grow_mb:
                HELD.append(b"w" * (OPTIONS.grow_mb << 20))
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(WarmBot)
