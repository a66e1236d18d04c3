"""The reason codes of the domain: how a seat ended a deal, by the names records keep.

Match records, store rows and JSON outputs hold a reason by its name (``OK``, ``CRASH``...),
and a ``Reason`` is that name (a ``StrEnum``). The bot protocol's ``ReasonCode`` is mapped to
and from it in one place, ``arena.protocol.reasons``.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """How a seat ended a deal; its value is its name."""

    OK = "OK"
    """Played to the end."""
    TIMEOUT = "TIMEOUT"
    """Forfeited after late answers or an exhausted time bank."""
    INVALID = "INVALID"
    """Forfeited after too many illegal, stale or malformed answers, or a flood."""
    CRASH = "CRASH"
    """The bot exited or broke its stream."""
    OOM = "OOM"
    """The bot ran out of memory."""
    INIT_ERROR = "INIT_ERROR"
    """The bot did not start, listen or answer MatchStart correctly."""
    VOID_INFRA = "VOID_INFRA"
    """The arena failed: no verdict against any bot."""
