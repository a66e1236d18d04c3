"""The deal ledger: every bot instance is shown a deal at most once.

A deal is its seed: the seed fixes every card of the deal, and one seed in two games of the
same deck deals the same order, so the ledger keys a deal by its seed alone, whatever the game.
Each bot instance (a process or a container) carries a ledger, and ``RemoteAgent.open`` admits
the deal before anything of it reaches the bot: an instance asked to open a deal it has already
been shown is refused with ``VOID_INFRA`` (an arena bug, no verdict against the bot) and is
told nothing. The runner plays each rotation of a duplicate set with instances of its own, and
a league worker's pool hands out only instances whose ledger has not seen the match's deal, so
the refusal never happens in play; it is the one check that a bug cannot get around.

The ledger keeps a keyed fingerprint of each seed, never the seed: the key is random per arena
process, so the ledger tells nothing of a deal to whoever reads it.
"""

from __future__ import annotations

import hashlib
import os
from typing import Final

from arena.agents.errors import AgentFailure
from arena.reasons import Reason

_KEY: Final = os.urandom(32)
"""This process's fingerprint key."""

MAX_DEALS: Final = 100_000
"""Deals an instance may be shown; a pool retires an instance whose ledger is full."""


def fingerprint(seed: int) -> bytes:
    """The keyed fingerprint of a deal seed (16 bytes)."""
    return hashlib.blake2b(seed.to_bytes(8, "big"), key=_KEY, digest_size=16).digest()


class DealRefused(AgentFailure):
    """An instance asked to open a deal it has already been shown: the arena's own failure."""

    def __init__(self, label: str) -> None:
        """The refusal for the bot ``label``."""
        super().__init__(Reason.VOID_INFRA, "infra",
                         f"bot {label}: this instance has already been shown this deal; "
                         "every rotation of a deal is played by an instance of its own")


class DealLedger:
    """The deals one bot instance has been shown, as keyed fingerprints of their seeds."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        """An instance that has seen nothing yet."""
        self._seen: set[bytes] = set()

    def __len__(self) -> int:
        """How many deals the instance has been shown."""
        return len(self._seen)

    def __contains__(self, seed: object) -> bool:
        """True when the instance has been shown the deal of ``seed``."""
        return isinstance(seed, int) and fingerprint(seed) in self._seen

    @property
    def full(self) -> bool:
        """True once the instance has been shown ``MAX_DEALS`` deals."""
        return len(self._seen) >= MAX_DEALS

    def admit(self, seed: int, label: str) -> None:
        """Note the deal as shown to the instance, or raise ``DealRefused`` if it was."""
        mark = fingerprint(seed)
        if mark in self._seen:
            raise DealRefused(label)
        self._seen.add(mark)
