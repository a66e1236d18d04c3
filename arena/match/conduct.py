"""How a match was conducted, for its record: per-seat reports, faults, times, debug notes.

Records of matches played by the runner carry, besides the actions, one report per seat
(who played it, how it ended, strikes, bank left, the bot's captured output), the time of each
decision in microseconds (None for the decisions of a forfeited seat, played by the
substitute), every fault, and the bots' debug texts. Records without them (older ones, or
``play_local``) stay valid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from arena.match.errors import RecordError
from arena.match.faults import Fault, reason_code

DEBUG_CAP = 1024
"""Bytes of a decision's debug text kept in the record."""


def cap_text(text: str, limit: int) -> str:
    """At most ``limit`` bytes of UTF-8, cut on a character boundary."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


@dataclass(frozen=True)
class SeatReport:
    """One seat of a deal: its player, how its participation ended, and its output."""

    agent: dict[str, Any]
    """The player: ``{"kind": "policy", "name": ...}`` or a bot's name, version, path, Ready."""
    reason: str = "OK"
    detail: str = ""
    forfeited: bool = False
    strikes: int = 0
    bank_ms: int | None = None
    """What was left of the time bank at the end."""
    stderr: str = ""
    """The bot's captured output (standard error, standard output too), capped."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"agent": dict(self.agent), "reason": self.reason, "detail": self.detail,
                "forfeited": self.forfeited, "strikes": self.strikes, "bank_ms": self.bank_ms,
                "stderr": self.stderr}

    @classmethod
    def from_dict(cls, data: object) -> SeatReport:
        """A seat report of a record, or a RecordError naming the bad field."""
        if not isinstance(data, dict) or not isinstance(data.get("agent"), dict):
            raise RecordError("bad match record: each of 'seats' must be an object with an "
                              "'agent' object")
        reason = data.get("reason", "OK")
        if not isinstance(reason, str):
            raise RecordError(f"bad match record: seat reason {reason!r} is not a name")
        reason_code(reason)
        forfeited = data.get("forfeited", False)
        strikes = data.get("strikes", 0)
        bank = data.get("bank_ms")
        if (not isinstance(forfeited, bool) or isinstance(strikes, bool)
                or not isinstance(strikes, int) or strikes < 0
                or (bank is not None and (isinstance(bank, bool) or not isinstance(bank, int)))):
            raise RecordError("bad match record: a seat's 'forfeited' must be a boolean, "
                              "'strikes' and 'bank_ms' integers")
        return cls(agent=dict(data["agent"]), reason=reason, detail=str(data.get("detail", "")),
                   forfeited=forfeited, strikes=strikes, bank_ms=bank,
                   stderr=str(data.get("stderr", "")))


@dataclass(frozen=True)
class DebugNote:
    """A bot's debug text for one decision (capped)."""

    decision: int
    seat: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"decision": self.decision, "seat": self.seat, "text": self.text}


@dataclass(frozen=True)
class Conduct:
    """Everything a runner-played record adds to the actions."""

    match_id: str = ""
    time_control: dict[str, int] = field(default_factory=dict)
    seats: tuple[SeatReport, ...] = ()
    decision_us: tuple[int | None, ...] = ()
    faults: tuple[Fault, ...] = ()
    debug: tuple[DebugNote, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The record keys it adds."""
        return {
            "match_id": self.match_id,
            "time_control": dict(self.time_control),
            "reasons": [seat.reason for seat in self.seats],
            "seats": [seat.to_dict() for seat in self.seats],
            "faults": [fault.to_dict() for fault in self.faults],
            "debug": [note.to_dict() for note in self.debug],
            "decision_us": list(self.decision_us),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], players: int,
                  actions: Sequence[int]) -> Conduct | None:
        """The conduct keys of a record (None when it has none), checked against its actions."""
        if "seats" not in data:
            return None
        seats = data["seats"]
        if not isinstance(seats, list) or len(seats) != players:
            raise RecordError(f"bad match record: 'seats' must list the {players} seats")
        times = data.get("decision_us", [])
        if not isinstance(times, list) or len(times) != len(actions) or not all(
                time is None or (isinstance(time, int) and not isinstance(time, bool)
                                 and time >= 0) for time in times):
            raise RecordError("bad match record: 'decision_us' must give a time in "
                              "microseconds (or null) for each action")
        faults = tuple(Fault.from_dict(item) if isinstance(item, dict) else _bad("faults")
                       for item in _items(data, "faults"))
        for fault in faults:
            _check_fault(fault, players, actions)
        debug = tuple(_note(item, players, len(actions)) for item in _items(data, "debug"))
        control = data.get("time_control", {})
        if not isinstance(control, dict):
            raise RecordError("bad match record: 'time_control' must be an object")
        return cls(match_id=str(data.get("match_id", "")), time_control=dict(control),
                   seats=tuple(SeatReport.from_dict(seat) for seat in seats),
                   decision_us=tuple(times), faults=faults, debug=debug)


def _items(data: Mapping[str, Any], key: str) -> list[Any]:
    """An optional list field."""
    value = data.get(key, [])
    if not isinstance(value, list):
        _bad(key)
    return list(value)


def _bad(key: str) -> NoReturn:
    """Raise the error of a malformed list field."""
    raise RecordError(f"bad match record: {key!r} must be a list of objects")


def _check_fault(fault: Fault, players: int, actions: Sequence[int]) -> None:
    """A fault must name a seat and decision of the record and the action it substituted."""
    if fault.seat >= players:
        raise RecordError(f"bad match record: a fault names seat {fault.seat} of {players}")
    if fault.decision is None:
        return
    if fault.decision >= len(actions):
        raise RecordError(f"bad match record: a fault names decision {fault.decision} of "
                          f"{len(actions)}")
    if fault.action is not None and actions[fault.decision] != fault.action:
        raise RecordError(f"bad match record: decision {fault.decision} played action "
                          f"{actions[fault.decision]}, its fault says {fault.action}")


def _note(item: object, players: int, actions: int) -> DebugNote:
    """A debug note of a record."""
    if not isinstance(item, dict):
        _bad("debug")
    decision, seat, text = item.get("decision"), item.get("seat"), item.get("text")
    if (not isinstance(decision, int) or not isinstance(seat, int) or not isinstance(text, str)
            or not 0 <= decision < actions or not 0 <= seat < players):
        raise RecordError("bad match record: a debug note needs a decision, a seat and a text")
    return DebugNote(decision, seat, text)
