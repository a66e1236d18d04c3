"""Counts in words: "1 game", "2 games"."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun plural unless the count is one (``plural`` when the
    plural is not ``noun`` + "s")."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
