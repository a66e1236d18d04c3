"""The fault policy: what counts as a fault, strikes, forfeits and their reason codes.

A late, illegal, unset (action 0), stale (an answer to another request) or malformed answer
is a fault: a random legal action is played instead and the seat gets a strike. At the
strike limit the seat forfeits, with TIMEOUT when the last strike was a timeout and INVALID
otherwise. A crash (the bot exits or breaks its stream), a message over the size limit or
more messages than it was asked for (INVALID) or a failed start (INIT_ERROR) forfeit at
once. A forfeited seat's remaining decisions are played by the same seeded random substitute,
so the deal completes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena.match.errors import RecordError
from arena.reasons import Reason

DEFAULT_STRIKES = 3
"""Faults a seat may make in a deal; the last one forfeits it."""


class FaultKind(StrEnum):
    """The kinds of faults the match log records."""

    TIMEOUT = "timeout"
    ILLEGAL = "illegal"
    UNSET = "unset"
    STALE = "stale"
    MALFORMED = "malformed"
    OVERSIZED = "oversized"
    FLOOD = "flood"
    CRASH = "crash"
    INIT_ERROR = "init_error"
    INFRA = "infra"


STRIKE_KINDS = frozenset({FaultKind.TIMEOUT, FaultKind.ILLEGAL, FaultKind.UNSET,
                          FaultKind.STALE, FaultKind.MALFORMED})
"""Faults that count a strike; the others forfeit at once."""


def reason_code(name: str) -> Reason:
    """The reason of a name such as ``CRASH``; a RecordError for unknown names."""
    try:
        return Reason[name]
    except KeyError:
        names = ", ".join(reason.name for reason in Reason)
        raise RecordError(f"unknown reason code {name!r}; valid: {names}") from None


def strike_reason(kind: FaultKind) -> Reason:
    """The reason of a seat forfeited by the strike of this kind."""
    return Reason.TIMEOUT if kind == FaultKind.TIMEOUT else Reason.INVALID


@dataclass(frozen=True)
class Fault:
    """One fault of a seat: when, what, the strike it counted and the action played instead."""

    seat: int
    kind: FaultKind
    detail: str
    decision: int | None = None
    """Index of the decision in the record's actions; None before play (a failed start)."""
    strike: int = 0
    """The seat's strike count after this fault; 0 when it was no strike."""
    action: int | None = None
    """The engine action substituted for this decision."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"decision": self.decision, "seat": self.seat, "kind": str(self.kind),
                "detail": self.detail, "strike": self.strike, "action": self.action}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fault:
        """A fault of a record, or a RecordError naming the bad field."""
        try:
            kind = FaultKind(str(data.get("kind")))
        except ValueError:
            raise RecordError(f"bad match record: unknown fault kind "
                              f"{data.get('kind')!r}") from None
        return cls(seat=_whole(data, "seat"), kind=kind, detail=str(data.get("detail", "")),
                   decision=_whole(data, "decision", optional=True),
                   strike=_whole(data, "strike", optional=True) or 0,
                   action=_whole(data, "action", optional=True))


def _whole(data: Mapping[str, Any], key: str, optional: bool = False) -> Any:
    """A non-negative integer field of a fault (or None when optional)."""
    value = data.get(key)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RecordError(f"bad match record: fault {key!r} must be a non-negative integer, "
                          f"got {value!r}")
    return value
