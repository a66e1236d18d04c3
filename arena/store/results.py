"""Reads of the seat results of done matches: forfeits by reason code, returns per game.

Each function runs its query in the session's transaction and leaves committing to the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.orm import Session

from arena.store.models import BotVersion, Match, MatchStatus, SeatResult


def version_faults(session: Session, league_ids: Sequence[int],
                   game: str | None = None) -> list[tuple[int, Any]]:
    """(bot version id, faults) of every seat of the done matches of some leagues (one game,
    or all)."""
    query = select(SeatResult.bot_version_id, SeatResult.faults).join(
        Match, SeatResult.match_id == Match.id).where(
        Match.league_id.in_(league_ids), Match.status == MatchStatus.DONE)
    if game is not None:
        query = query.where(Match.game_id == game)
    return [(version, faults) for version, faults in session.execute(query)]


def bot_faults(session: Session, bot_ids: Sequence[int]) -> list[tuple[int, Any]]:
    """(bot id, faults) of every seat some bots (any version) held in a done match."""
    return [(bot_id, faults) for bot_id, faults in session.execute(
        select(BotVersion.bot_id, SeatResult.faults).join(
            SeatResult, SeatResult.bot_version_id == BotVersion.id).join(
            Match, SeatResult.match_id == Match.id).where(
            BotVersion.bot_id.in_(list(bot_ids)), Match.status == MatchStatus.DONE))]


def league_returns(session: Session, league_id: int) -> Sequence[Row[*tuple[Any, ...]]]:
    """Rows of (game, bot version id, total return, returns) of every seat of a league's done
    matches."""
    return session.execute(select(Match.game_id, SeatResult.bot_version_id,
                                  SeatResult.total_return, SeatResult.returns).join(
        SeatResult, SeatResult.match_id == Match.id).where(
        Match.league_id == league_id, Match.status == MatchStatus.DONE)).all()


def seat_results(session: Session, match_id: str) -> list[SeatResult]:
    """A match's seat results, in seat order."""
    return list(session.scalars(select(SeatResult).where(
        SeatResult.match_id == match_id).order_by(SeatResult.seat)))


def recent_returns(session: Session, version_ids: Sequence[int],
                   limit: int) -> list[tuple[str, str, float]]:
    """(match id, game, total return) of the latest done matches some bot versions played,
    latest finished first, at most ``limit``."""
    return [(match_id, game, total) for match_id, game, total in session.execute(
        select(Match.id, Match.game_id, SeatResult.total_return).join(
            SeatResult, SeatResult.match_id == Match.id).where(
            SeatResult.bot_version_id.in_(version_ids),
            Match.status == MatchStatus.DONE).order_by(
            Match.finished_at.desc(), Match.id).limit(limit))]
