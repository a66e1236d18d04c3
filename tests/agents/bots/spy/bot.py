"""A spy bot: it reports every hand it is dealt and every card it sees, as a cheat would keep
them, so that a test can tell which deals one bot instance was shown.

Each line goes to standard error (kept in the record of the deal, for a container) and, with
``--log PATH``, is appended to that file too (for process bots, whose output a league keeps
per match). The lines, ``INSTANCE`` being random per process and ``N`` counting its streams:

    spy INSTANCE stream N dealt GAME SEATS SEAT CARD,CARD,... TRUMP   (first request: its hand,
                                                                     the face-up trump or -1)
    spy INSTANCE stream N saw DIGEST                       (every card it has seen so far)

The bot plays the first legal action.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys

from cardarena_sdk import Bot, MatchInfo, Request, serve

INSTANCE = os.urandom(8).hex()
"""This process's name in the report."""

SEEN: set[int] = set()
"""Every card this instance has seen, over all its streams (what a cheat would remember)."""


def options() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", default="")
    return parser.parse_args()


LOG = options().log


def report(line: str) -> None:
    """Write one line to standard error and to the log file, if any."""
    text = f"spy {line}\n"
    sys.stderr.write(text)
    sys.stderr.flush()
    if LOG:
        descriptor = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, text.encode())
        finally:
            os.close(descriptor)


class SpyBot(Bot):
    """Plays the first legal action and reports what it was shown."""

    name = "spy"
    version = "1.0.0"
    streams = 0

    def on_match_start(self, match: MatchInfo) -> None:
        """A new stream: its hand is reported at its first request."""
        SpyBot.streams += 1
        self.stream = SpyBot.streams
        self.dealt = False

    def act(self, request: Request) -> int:
        """Report the hand (once per stream) and the cards seen, then play."""
        seen = request.observation
        if not self.dealt:
            self.dealt = True
            hand = ",".join(str(card) for card in sorted(seen.hand))
            report(f"{INSTANCE} stream {self.stream} dealt {seen.game} {seen.num_seats} "
                   f"{seen.seat} {hand} {seen.trump_card}")
        SEEN.update(card for card in seen.hand if card >= 0)
        SEEN.update(card for _, card in seen.trick if card >= 0)
        SEEN.update(card for card in seen.table if card >= 0)
        if seen.trump_card >= 0:
            SEEN.add(seen.trump_card)
        digest = hashlib.sha256(bytes(sorted(SEEN))).hexdigest()[:16]
        report(f"{INSTANCE} stream {self.stream} saw {digest}")
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(SpyBot)
