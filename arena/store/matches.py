"""Reads of matches: counts by status, the ids still to run, leases, void sets, records.

Each function runs its query in the session's transaction and leaves committing to the caller.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, select
from sqlalchemy.orm import Session

from arena.store.models import League, Match, MatchRecordRow, MatchStatus, SeatResult

RECORDS_CHUNK = 500
"""Match ids per query when reading deal records (a bound list of ids has a limit)."""


def status_counts(session: Session, league_id: int) -> dict[MatchStatus, int]:
    """How many of a league's matches have each status (statuses with none left out)."""
    rows = session.execute(select(Match.status, func.count()).where(
        Match.league_id == league_id).group_by(Match.status)).all()
    return {MatchStatus(status): count for status, count in rows}


def game_status_counts(session: Session, league_id: int) -> list[tuple[str, MatchStatus, int]]:
    """(game, status, how many) over a league's matches."""
    rows = session.execute(select(Match.game_id, Match.status, func.count()).where(
        Match.league_id == league_id).group_by(Match.game_id, Match.status)).all()
    return [(game, status, count) for game, status, count in rows]


def void_matches(session: Session, league_id: int) -> Sequence[Row[*tuple[Any, ...]]]:
    """A league's void matches in schedule order: rows of ``id``, ``last_error``, ``rotations``."""
    return session.execute(select(Match.id, Match.last_error, Match.rotations).where(
        Match.league_id == league_id, Match.status == MatchStatus.VOID
    ).order_by(Match.position)).all()


def void_rotations(session: Session, league_ids: Sequence[int]) -> list[tuple[str, Any]]:
    """(game, rotations) of every void match of some leagues."""
    return [(game, rotations) for game, rotations in session.execute(
        select(Match.game_id, Match.rotations).where(
            Match.league_id.in_(league_ids), Match.status == MatchStatus.VOID))]


def unfinished_ids(session: Session, league_id: int) -> list[str]:
    """The ids of a league's matches not yet done or void (leased ones too), in schedule order."""
    return list(session.scalars(select(Match.id).where(
        Match.league_id == league_id,
        Match.status.in_([MatchStatus.PENDING, MatchStatus.LEASED])).order_by(Match.position)))


def pending_ids(session: Session, league_id: int) -> list[str]:
    """The ids of a league's pending matches, by id."""
    return list(session.scalars(select(Match.id).where(
        Match.league_id == league_id, Match.status == MatchStatus.PENDING,
    ).order_by(Match.id)))


def expired_in_league(session: Session, league_id: int,
                      now: datetime) -> dict[str, datetime | None]:
    """A league's leased matches whose lease ran out before ``now``, with their expiry,
    oldest first."""
    return {match_id: expiry for match_id, expiry in session.execute(
        select(Match.id, Match.lease_expires).where(
            Match.league_id == league_id, Match.status == MatchStatus.LEASED,
            Match.lease_expires < now,
        ).order_by(Match.lease_expires, Match.id))}


def lease_states(session: Session, ids: Iterable[str]) -> dict[str, Row[*tuple[Any, ...]]]:
    """Some matches' rows of ``id``, ``status`` and ``lease_expires``, by id."""
    return {row.id: row for row in session.execute(
        select(Match.id, Match.status, Match.lease_expires).where(Match.id.in_(ids)))}


def done_matches(session: Session, league_id: int, game: str | None = None) -> list[Match]:
    """A league's done matches (of one game, or all) in schedule order."""
    query = select(Match).where(Match.league_id == league_id,
                                Match.status == MatchStatus.DONE).order_by(Match.position)
    if game is not None:
        query = query.where(Match.game_id == game)
    return list(session.scalars(query))


def stored_records(session: Session,
                   match_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The stored deal records of some matches, each match's in deal order."""
    found: dict[str, list[dict[str, Any]]] = {}
    for start in range(0, len(match_ids), RECORDS_CHUNK):
        chunk = match_ids[start:start + RECORDS_CHUNK]
        for row in session.scalars(select(MatchRecordRow).where(
                MatchRecordRow.match_id.in_(chunk)).order_by(MatchRecordRow.match_id,
                                                             MatchRecordRow.deal)):
            found.setdefault(row.match_id, []).append(row.record)
    return found


def done_version(session: Session, league_id: int | None = None) -> tuple[int, datetime | None]:
    """How many matches (of one league, or all) are done, and when the latest finished."""
    query = select(func.count(), func.max(Match.finished_at)).where(
        Match.status == MatchStatus.DONE)
    if league_id is not None:
        query = query.where(Match.league_id == league_id)
    count, latest = session.execute(query).one()
    return int(count), latest


def league_matches(session: Session, league_id: int) -> list[Match]:
    """Every match of a league, in schedule order."""
    return list(session.scalars(select(Match).where(Match.league_id == league_id)
                                .order_by(Match.position)))


def record_rows(session: Session, match_id: str) -> list[MatchRecordRow]:
    """The stored deal records of a match, in deal order."""
    return list(session.scalars(select(MatchRecordRow).where(
        MatchRecordRow.match_id == match_id).order_by(MatchRecordRow.deal)))


def matches_played_by(session: Session, version_ids: Iterable[int],
                      league: str | None = None) -> list[Match]:
    """The matches some bot versions hold a seat result in (of the league of that name, or
    all), latest finished first."""
    played = select(SeatResult.match_id).where(SeatResult.bot_version_id.in_(version_ids))
    query = (select(Match).where(Match.id.in_(played))
             .order_by(Match.finished_at.desc(), Match.id))
    if league:
        query = query.join(League, League.id == Match.league_id).where(League.name == league)
    return list(session.scalars(query))


def done_entrants(session: Session, league_id: int) -> list[list[int]]:
    """The entrants (bot version ids in seat order) of each of a league's done matches."""
    return [list(entrants) for entrants in session.scalars(select(Match.entrants).where(
        Match.league_id == league_id, Match.status == MatchStatus.DONE))]
