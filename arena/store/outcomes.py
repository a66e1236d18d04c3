"""From a played duplicate set to the rows ``complete_match`` writes: seat outcomes, records.

A match's seat ``e`` is entrant ``e`` of the set (its seat in rotation 0). Its outcome sums its
returns over the deals, keeps the worst reason (the first that is not ``OK``), counts its
forfeited deals by reason code (``faults``, ``forfeits``; VOID_INFRA is no forfeit), and
summarises the time of its own decisions over every deal; the acting seat of each decision is
found by replaying the deal's record.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from arena.match import DuplicateResult, MatchRecord
from arena.store.leases import SeatOutcome

VOID_INFRA = "VOID_INFRA"
"""The reason of a deal the arena failed: no forfeit."""


def seat_outcomes(result: DuplicateResult, entrants: Sequence[int]) -> list[SeatOutcome]:
    """One outcome per entrant of a set that counts, with the bot version id of each entrant.

    Raises ``ValueError`` for a void set (hand the attempt back with ``fail_match`` instead).
    """
    if result.void:
        raise ValueError("a void duplicate set has no results: " + "; ".join(
            problem for deal in result.deals for problem in deal.problems()))
    if len(entrants) != len(result.entrants):
        raise ValueError(f"{len(entrants)} bot versions given for the "
                         f"{len(result.entrants)} entrants of the set")
    times = _decision_times(result)
    outcomes = []
    for entrant, version in zip(result.entrants, entrants, strict=True):
        names = [name for name in entrant.reason_names if name != "OK"]
        faults = Counter(name for name in names if name != VOID_INFRA)
        own = times[entrant.index]
        outcomes.append(SeatOutcome(
            seat=entrant.index, bot_version_id=version, total_return=entrant.total,
            returns=tuple(entrant.returns), reason=names[0] if names else "OK",
            forfeited=entrant.forfeits > 0, forfeits=sum(faults.values()),
            faults=dict(faults), decisions=len(own),
            decision_us_mean=sum(own) / len(own) if own else None,
            decision_us_p50=percentile(own, 50), decision_us_p95=percentile(own, 95),
            decision_us_max=max(own) if own else None))
    return outcomes


def deal_records(result: DuplicateResult) -> list[dict[str, Any]]:
    """Each deal's match record as JSON, in rotation order, with its rotation and entrants."""
    return [deal.to_dict() for deal in result.deals]


def decision_seats(record: MatchRecord) -> list[int]:
    """The seat that took each recorded action (by replaying the deal)."""
    state = record.make_game().new_initial_state(record.seed)
    seats = []
    for action in record.actions:
        seats.append(state.current_player())
        state.apply_action(action)
    return seats


def percentile(values: Sequence[int], percent: float) -> int | None:
    """The nearest-rank percentile of some times (None without any)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]


def _decision_times(result: DuplicateResult) -> dict[int, list[int]]:
    """Each entrant's timed decisions (microseconds) over the deals of the set."""
    times: dict[int, list[int]] = {entrant.index: [] for entrant in result.entrants}
    for deal in result.deals:
        record = deal.record
        if record is None or record.conduct is None:
            continue
        for seat, elapsed in zip(decision_seats(record), record.conduct.decision_us,
                                 strict=True):
            if elapsed is not None:
                times[deal.entrants[seat]].append(elapsed)
    return times
