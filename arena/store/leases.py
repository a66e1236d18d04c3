"""Leases on matches: what makes running a match idempotent, on SQLite and PostgreSQL alike.

A worker runs a match only after ``claim_match`` won it: an atomic compare-and-set that takes a
pending match, or one whose lease expired (its worker died), and counts the attempt. Only the
lease owner may ``complete_match``, which writes the seat results, the deal records and the
``done`` status in one transaction; a second completion is refused, and the unique
(match, seat) and (match, deal) keys make a double count impossible anyway. A failed attempt
is handed back with ``fail_match``; once a match has used ``max_attempts`` it is void.

Every function here is one transaction on the session it is given (one per match where it
goes through several): it commits (or rolls back) before returning. Call them on a session
with no transaction of its own in progress.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, and_, case, func, insert, literal, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from arena.store.columns import UtcDateTime
from arena.store.models import Match, MatchRecordRow, MatchStatus, SeatResult, utc_now

DEFAULT_MAX_ATTEMPTS = 3
"""Attempts a match gets before it is void (a poison match stops there)."""


@dataclass(frozen=True)
class SeatOutcome:
    """What one entrant of a match got: the row ``complete_match`` writes for its seat."""

    seat: int
    bot_version_id: int
    total_return: float
    returns: tuple[float, ...] = ()
    reason: str = "OK"
    forfeited: bool = False
    forfeits: int = 0
    """Deals forfeited."""
    faults: Mapping[str, int] = field(default_factory=dict)
    """Forfeited deals by reason code."""
    decisions: int = 0
    decision_us_mean: float | None = None
    decision_us_p50: int | None = None
    decision_us_p95: int | None = None
    decision_us_max: int | None = None

    def row(self, match_id: str) -> dict[str, Any]:
        """The ``seat_results`` row of this outcome."""
        return {**asdict(self), "returns": list(self.returns), "faults": dict(self.faults),
                "match_id": match_id}


def claim_match(session: Session, match_id: str, owner: str, lease_s: float, *,
                max_attempts: int = DEFAULT_MAX_ATTEMPTS, now: datetime | None = None) -> bool:
    """Take the lease on a pending match (or one whose lease expired); True if this call won.

    A claimable match that has already used ``max_attempts`` is made void instead.
    """
    now = now or utc_now()
    claimed = _rowcount(session, update(Match).where(
        Match.id == match_id, _claimable(now), Match.attempts < max_attempts,
    ).values(
        status=MatchStatus.LEASED, lease_owner=owner, lease_expires=now + _seconds(lease_s),
        attempts=Match.attempts + 1, started_at=now, last_error=_expired_note(),
    ))
    if not claimed:
        _void_where(session, and_(Match.id == match_id, Match.attempts >= max_attempts),
                    max_attempts, now)
    session.commit()
    return claimed == 1


def renew_lease(session: Session, match_id: str, owner: str, lease_s: float, *,
                now: datetime | None = None) -> bool:
    """Push the lease's expiry to ``now + lease_s``; False if ``owner`` no longer holds it."""
    now = now or utc_now()
    renewed = _rowcount(session, update(Match).where(_held_by(match_id, owner)).values(
        lease_expires=now + _seconds(lease_s)))
    session.commit()
    return renewed == 1


def complete_match(session: Session, match_id: str, owner: str, results: Sequence[SeatOutcome],
                   records: Sequence[Mapping[str, Any]], *, now: datetime | None = None) -> bool:
    """Write the results, the records (one per deal, in order) and ``done``, as the lease owner.

    Each record is stamped with the match's ``seed_source``: the store, not the runner, knows
    whether the deal was secret.

    False, with nothing written, if ``owner`` does not hold the lease (it expired and another
    worker took it, or the match is already done). Raises ``ValueError`` for results that do
    not give exactly one row per seat of the match with its entrant.
    """
    now = now or utc_now()
    try:
        done = _rowcount(session, update(Match).where(_held_by(match_id, owner)).values(
            status=MatchStatus.DONE, lease_expires=None, finished_at=now, last_error=None))
        if not done:
            session.rollback()
            return False
        match = session.execute(select(Match.seats, Match.entrants, Match.seed_source)
                                .where(Match.id == match_id)).one()
        _check_results(match_id, match.seats, match.entrants, results)
        session.execute(insert(SeatResult), [outcome.row(match_id) for outcome in results])
        if records:
            session.execute(insert(MatchRecordRow), [
                {"match_id": match_id, "deal": deal,
                 "record": {**record, "seed_source": match.seed_source.value}}
                for deal, record in enumerate(records)])
        session.commit()
    except IntegrityError:
        session.rollback()
        return False
    except BaseException:
        session.rollback()
        raise
    return True


def fail_match(session: Session, match_id: str, owner: str, error: str, *,
               max_attempts: int = DEFAULT_MAX_ATTEMPTS,
               now: datetime | None = None) -> MatchStatus | None:
    """Hand back a failed attempt: pending again, or void at the attempt cap.

    The new status, or None if ``owner`` does not hold the lease (nothing changes then).
    """
    now = now or utc_now()
    exhausted = Match.attempts >= max_attempts
    changed = _rowcount(session, update(Match).where(_held_by(match_id, owner)).values(
        status=case((exhausted, literal(MatchStatus.VOID.value)),
                    else_=literal(MatchStatus.PENDING.value)),
        lease_owner=None, lease_expires=None, last_error=error,
        finished_at=case((exhausted, literal(now, UtcDateTime())), else_=None),
    ))
    status = session.scalar(select(Match.status).where(Match.id == match_id)) if changed else None
    session.commit()
    return status


def expired_leases(session: Session, now: datetime | None = None) -> list[str]:
    """The ids of leased matches whose lease has run out (their worker is gone), oldest first."""
    now = now or utc_now()
    ids = session.scalars(select(Match.id).where(
        Match.status == MatchStatus.LEASED, Match.lease_expires < now,
    ).order_by(Match.lease_expires, Match.id)).all()
    session.commit()
    return list(ids)


def void_exhausted(session: Session, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                   now: datetime | None = None) -> list[str]:
    """Make void every claimable match that has used ``max_attempts``; their ids."""
    now = now or utc_now()
    exhausted = and_(_claimable(now), Match.attempts >= max_attempts)
    candidates = session.scalars(select(Match.id).where(exhausted).order_by(Match.id)).all()
    session.commit()
    voided = []
    for match_id in candidates:
        if _void_where(session, and_(Match.id == match_id, Match.attempts >= max_attempts),
                       max_attempts, now):
            voided.append(match_id)
        session.commit()
    return voided


def void_match(session: Session, match_id: str, reason: str, *,
               now: datetime | None = None) -> bool:
    """Give up on a match that is not done (pending or leased), with the reason; True if so."""
    now = now or utc_now()
    voided = _rowcount(session, update(Match).where(
        Match.id == match_id, Match.status.in_([MatchStatus.PENDING, MatchStatus.LEASED]),
    ).values(status=MatchStatus.VOID, lease_expires=None, finished_at=now, last_error=reason))
    session.commit()
    return voided == 1


def release_match(session: Session, match_id: str, owner: str) -> bool:
    """Hand back an interrupted attempt: pending again, the attempt not counted; True if held."""
    released = _rowcount(session, update(Match).where(
        Match.id == match_id, Match.status == MatchStatus.LEASED, Match.lease_owner == owner,
    ).values(status=MatchStatus.PENDING, lease_owner=None, lease_expires=None,
             attempts=Match.attempts - 1, started_at=None, last_error="interrupted"))
    session.commit()
    return released == 1


def release_owners(session: Session, owner_prefix: str) -> list[str]:
    """Hand back every lease held by an owner whose name starts with ``owner_prefix`` (its
    workers are known to be stopped), attempts not counted; the match ids."""
    held = session.scalars(select(Match.id).where(
        Match.status == MatchStatus.LEASED,
        Match.lease_owner.startswith(owner_prefix, autoescape=True))).all()
    session.commit()
    released = []
    for match_id in held:
        owner = session.scalar(select(Match.lease_owner).where(Match.id == match_id))
        session.commit()
        if owner is not None and release_match(session, match_id, owner):
            released.append(match_id)
    return released


def expire_owners(session: Session, owner_prefix: str, *, now: datetime | None = None) -> int:
    """Make the leases held by owners named ``owner_prefix...`` run out now (their workers are
    gone; the attempt counts); how many."""
    expired = _rowcount(session, update(Match).where(
        Match.status == MatchStatus.LEASED,
        Match.lease_owner.startswith(owner_prefix, autoescape=True),
    ).values(lease_expires=now or utc_now()))
    session.commit()
    return expired


def _claimable(now: datetime) -> ColumnElement[bool]:
    """Pending, or leased with the lease run out."""
    return or_(Match.status == MatchStatus.PENDING,
               and_(Match.status == MatchStatus.LEASED, Match.lease_expires < now))


def _held_by(match_id: str, owner: str) -> ColumnElement[bool]:
    """The match is leased by ``owner``."""
    return and_(Match.id == match_id, Match.status == MatchStatus.LEASED,
                Match.lease_owner == owner)


def _expired_note(otherwise: Any = Match.last_error) -> ColumnElement[Any]:
    """For a match with an expired lease, whose lease ran out; else ``otherwise``."""
    return case((Match.status == MatchStatus.LEASED,
                 literal("the lease of ") + func.coalesce(Match.lease_owner, "?")
                 + literal(" expired")),
                else_=otherwise)


def _void_where(session: Session, where: ColumnElement[bool], max_attempts: int,
                now: datetime) -> int:
    """Void the claimable matches that ``where`` selects, noting the attempt cap."""
    note = (literal(f"gave up after {max_attempts} attempts; last error: ")
            + _expired_note(func.coalesce(Match.last_error, "none")))
    return _rowcount(session, update(Match).where(where, _claimable(now)).values(
        status=MatchStatus.VOID, lease_expires=None, finished_at=now, last_error=note))


def _check_results(match_id: str, seats: int, entrants: Sequence[int],
                   results: Sequence[SeatOutcome]) -> None:
    """One outcome per seat, each naming the entrant that sits there."""
    if sorted(outcome.seat for outcome in results) != list(range(seats)):
        raise ValueError(f"match {match_id}: results must give seats 0..{seats - 1} once each")
    for outcome in results:
        if outcome.bot_version_id != entrants[outcome.seat]:
            raise ValueError(f"match {match_id}: seat {outcome.seat} is bot version "
                             f"{entrants[outcome.seat]}, not {outcome.bot_version_id}")


def _rowcount(session: Session, statement: Any) -> int:
    """Run an UPDATE without touching loaded objects; how many rows it changed."""
    result = session.execute(statement.execution_options(synchronize_session=False))
    return cast(CursorResult[Any], result).rowcount


def _seconds(value: float) -> timedelta:
    """A positive duration in seconds."""
    if value <= 0:
        raise ValueError(f"a lease must last a positive time, not {value} s")
    return timedelta(seconds=value)
