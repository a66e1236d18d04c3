"""What a run gives: each deal's result and record, and each entrant's paired results.

A duplicate set plays the same deal once per rotation, entrant ``e`` at seat
``(e + rotation) % seats``; an entrant's result is the sum (and mean) of its returns over the
rotations. A forfeited seat's returns are those of the deal as completed by the random
substitute; they stand, but the seat is flagged (``forfeited``, its reason code) so that a
league can score a forfeit as it chooses. A void deal (VOID_INFRA: the arena failed) has no
record and counts for no one; a set with a void deal is void.

``DuplicateResult.to_json`` writes ``{"format": "card-arena.duplicate", ...}`` with every
deal's match record under ``deals``; ``read_records`` reads that or a single match record.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.agents import AgentExit
from arena.games.params import ParamValue
from arena.match.errors import RecordError
from arena.match.faults import Fault
from arena.match.record import FORMAT, MatchRecord
from arena.match.safetext import safe_json
from arena.reasons import Reason

DUPLICATE_FORMAT = "card-arena.duplicate"
"""The ``format`` of a duplicate set's JSON file."""

DUPLICATE_FORMAT_VERSION = 1


@dataclass(frozen=True)
class DealResult:
    """One deal of a run: who sat where, how each seat ended, and the match record."""

    rotation: int
    entrants: tuple[int, ...]
    """The entrant index at each seat."""
    labels: tuple[str, ...]
    """The player at each seat: a policy name, or a bot's ``name (bot)``."""
    returns: tuple[float, ...]
    reasons: tuple[Reason, ...]
    """Each seat's reason code."""
    details: tuple[str, ...]
    forfeited: tuple[bool, ...]
    faults: tuple[Fault, ...]
    record: MatchRecord | None
    """None only for a void deal."""
    void: str = ""
    """Why the deal is void (the arena failed); empty for a deal that counts."""

    @property
    def reason_names(self) -> tuple[str, ...]:
        """``OK``, ``CRASH``, ... per seat."""
        return tuple(reason.name for reason in self.reasons)

    def problems(self) -> list[str]:
        """One line per seat that did not end OK, naming the player, the reason and why."""
        if self.void:
            return [f"the deal is void (VOID_INFRA): {self.void}"]
        return [f"seat {seat} {self.labels[seat]}: {name}: {self.details[seat]}"
                for seat, name in enumerate(self.reason_names) if name != "OK"]

    def to_dict(self) -> dict[str, Any]:
        """The match record's JSON form, or the void deal's rotation, seats and reason."""
        if self.record is not None:
            return {"rotation": self.rotation, "entrants": list(self.entrants),
                    **self.record.to_dict()}
        return {"rotation": self.rotation, "entrants": list(self.entrants), "void": self.void,
                "reasons": list(self.reason_names)}


@dataclass(frozen=True)
class EntrantResult:
    """One entrant of a run: its seats and returns per deal, paired into a total."""

    index: int
    label: str
    agent: dict[str, Any]
    seats: tuple[int, ...]
    returns: tuple[float, ...]
    """Per deal that counts (void deals left out)."""
    reasons: tuple[Reason, ...]
    exit: AgentExit
    """How the entrant's bot ended: the first of its instances that did not exit cleanly (a
    non-zero status or a signal), else its first instance."""
    exits: tuple[AgentExit, ...] = ()
    """How each of its instances ended, one per rotation (each rotation has its own)."""

    @property
    def total(self) -> float:
        """The sum of its returns over the deals."""
        return float(sum(self.returns))

    @property
    def mean(self) -> float:
        """The mean of its returns over the deals (0 without any)."""
        return self.total / len(self.returns) if self.returns else 0.0

    @property
    def forfeits(self) -> int:
        """Deals in which it forfeited."""
        return sum(reason != Reason.OK for reason in self.reasons)

    @property
    def reason_names(self) -> tuple[str, ...]:
        """Its reason per deal, by name."""
        return tuple(reason.name for reason in self.reasons)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"index": self.index, "label": self.label, "agent": dict(self.agent),
                "seats": list(self.seats), "returns": list(self.returns), "total": self.total,
                "mean": self.mean, "reasons": list(self.reason_names),
                "forfeits": self.forfeits, "exit": self.exit.to_dict(),
                "exits": [exit_.to_dict() for exit_ in self.exits]}


@dataclass(frozen=True)
class DuplicateResult:
    """A duplicate set (or any number of rotations): its deals and paired entrant results."""

    game: str
    players: int
    params: dict[str, ParamValue]
    seed: int
    deals: tuple[DealResult, ...]
    entrants: tuple[EntrantResult, ...]

    @property
    def void(self) -> bool:
        """True when a deal is void, so the pairing is incomplete."""
        return any(deal.void for deal in self.deals)

    @property
    def records(self) -> tuple[MatchRecord, ...]:
        """The records of the deals that count."""
        return tuple(deal.record for deal in self.deals if deal.record is not None)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"format": DUPLICATE_FORMAT, "format_version": DUPLICATE_FORMAT_VERSION,
                "game": self.game, "players": self.players, "params": dict(self.params),
                "seed": self.seed, "void": self.void,
                "entrants": [entrant.to_dict() for entrant in self.entrants],
                "deals": [deal.to_dict() for deal in self.deals]}

    def to_json(self) -> str:
        """The JSON text: one key per line, each entrant's and deal's keys too; safe to print
        (``safe_json``)."""
        data = self.to_dict()
        lines = [_pair(key, value, 1) for key, value in data.items()
                 if key not in ("entrants", "deals")]
        for key in ("entrants", "deals"):
            objects = [_object(item, 2) for item in data[key]]
            lines.append(f"  {json.dumps(key)}: [\n" + ",\n".join(objects) + "\n  ]")
        return safe_json("{\n" + ",\n".join(lines) + "\n}\n")

    def save(self, path: Path) -> None:
        """Write the JSON form to a file."""
        try:
            path.write_text(self.to_json(), encoding="utf-8")
        except OSError as error:
            raise RecordError(f"cannot write {str(path)!r}: {error.strerror or error}") from None


def _pair(key: str, value: Any, depth: int) -> str:
    """``"key": value`` on one line, indented."""
    return f"{'  ' * depth}{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"


def _object(data: dict[str, Any], depth: int) -> str:
    """An object with one key per line."""
    pad = "  " * depth
    inner = ",\n".join(_pair(key, value, depth + 1) for key, value in data.items())
    return f"{pad}{{\n{inner}\n{pad}}}"


def records_from_dict(data: object) -> list[MatchRecord]:
    """The records of a single match record or of a duplicate set's deals (void ones left out)."""
    if isinstance(data, dict) and data.get("format") == DUPLICATE_FORMAT:
        deals = data.get("deals")
        if not isinstance(deals, list) or not all(isinstance(deal, dict) for deal in deals):
            raise RecordError("bad duplicate set: 'deals' must be a list of objects")
        records = []
        for index, deal in enumerate(deals):
            if deal.get("void"):
                continue
            try:
                records.append(MatchRecord.from_dict({**deal, "format": FORMAT}))
            except RecordError as error:
                raise RecordError(f"deal {index + 1}: {error}") from None
        return records
    return [MatchRecord.from_dict(data)]


def read_records(path: Path) -> list[MatchRecord]:
    """The match records of a file written by ``arena play --save`` (one, or a whole set)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise RecordError(f"cannot read match record {str(path)!r}: "
                          f"{error.strerror or error}") from None
    except UnicodeDecodeError:
        raise RecordError(f"not a match record: {str(path)!r} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"{path}: not a match record: invalid JSON ({error})") from None
    try:
        return records_from_dict(data)
    except RecordError as error:
        raise RecordError(f"{path}: {error}") from None


def clean_instances(result: DuplicateResult) -> set[tuple[int, int]]:
    """The (entrant, rotation) pairs whose deal the entrant played without a fault or a
    forfeit; none when the set is void."""
    if result.void:
        return set()
    clean = set()
    for deal in result.deals:
        for seat, entrant in enumerate(deal.entrants):
            if not deal.forfeited[seat] and all(fault.seat != seat for fault in deal.faults):
                clean.add((entrant, deal.rotation))
    return clean


def first_unclean(exits: Sequence[AgentExit]) -> AgentExit:
    """The first exit with a non-zero status or a signal, else the first (``EntrantResult.exit``
    of an entrant whose rotations each had an instance of their own)."""
    return next((exit_ for exit_ in exits if exit_.status not in (None, 0)),
                exits[0] if exits else AgentExit())


def entrant_seats(entrant: int, rotations: Sequence[int], players: int) -> tuple[int, ...]:
    """The seat of an entrant in each rotation."""
    return tuple((entrant + rotation) % players for rotation in rotations)
