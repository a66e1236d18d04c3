"""Callable players for the tests: one that plays well, one that answers illegally, one that
raises, and an SDK Bot that leaves a debug note."""

from __future__ import annotations

from typing import Any

from cardarena_sdk import Bot

NOTE = "a note only the bot's owner may read"
"""The debug text ``NoteBot`` sends with every decision."""


def first_legal(request: Any) -> int:
    """The first legal action."""
    return int(request.legal_ids[0])


def illegal(request: Any) -> int:
    """An action id that is never legal."""
    return 10_000


def not_an_id(request: Any) -> str:
    """Something that is no action id at all."""
    return "the ace"


class Broken(Exception):
    """What ``raises`` raises."""


def raises(request: Any) -> int:
    """Raise on the first decision."""
    raise Broken("this player always fails")


class NoteBot(Bot):
    """Plays the last legal action and explains itself in ``request.debug``."""

    name = "note-bot"
    version = "1.0"

    def act(self, request: Any) -> int:
        """The last legal action, with the note."""
        request.debug = NOTE
        return int(request.legal_ids[-1])
