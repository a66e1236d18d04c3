"""A bot's logs belong to its owner: match records with the logs of other seats withheld.

A seat's logs in a match record are what its bot wrote and what the arena quotes of it: the
captured standard error (``seats[i].stderr``), the seat's ending (``seats[i].detail``, which
may quote a gRPC status the bot sent or the end of its log), the text of its faults
(``faults[k].detail``) and its debug notes (``debug``). ``withhold_logs`` empties them for
every seat but the ones given; what the seat played, its reason code, strikes, times and
returns stay, as everyone may see those.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

SEAT_LOG_KEYS = ("stderr", "detail")
"""The keys of a seat report that hold its logs."""


def withhold_logs(data: Mapping[str, Any], seats: Collection[int]) -> dict[str, Any]:
    """A copy of a record's JSON form in which only ``seats`` keep their logs."""
    record = dict(data)
    if isinstance(data.get("seats"), list):
        record["seats"] = [
            report if seat in seats or not isinstance(report, dict)
            else {**report, **{key: "" for key in SEAT_LOG_KEYS if key in report}}
            for seat, report in enumerate(data["seats"])]
    if isinstance(data.get("faults"), list):
        record["faults"] = [
            fault if not isinstance(fault, dict) or fault.get("seat") in seats
            else {**fault, "detail": ""} for fault in data["faults"]]
    if isinstance(data.get("debug"), list):
        record["debug"] = [note for note in data["debug"]
                           if isinstance(note, dict) and note.get("seat") in seats]
    return record


def entrant_seats(data: Mapping[str, Any], entrants: Collection[int]) -> frozenset[int]:
    """The seats of a league's deal record held by one of ``entrants`` (places in the match's
    entrants: the record's ``entrants`` names the one at each seat)."""
    seated = data.get("entrants")
    if not isinstance(seated, list):
        return frozenset()
    return frozenset(seat for seat, entrant in enumerate(seated) if entrant in entrants)
