"""Leagues and their entrants: a league by name, every league, the bots entered; a new league
with its entrants and matches, or a league deleted.

Each function works in the session's transaction and leaves committing to the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session, selectinload

from arena.store.models import BotVersion, League, LeagueEntrant, Match


def league_named(session: Session, name: str) -> League | None:
    """The league of that name, if there is one."""
    return session.scalars(select(League).where(League.name == name)).one_or_none()


def league_names(session: Session) -> list[str]:
    """The names of every league, oldest first."""
    return list(session.scalars(select(League.name).order_by(League.id)).all())


def all_leagues(session: Session) -> list[League]:
    """Every league, oldest first."""
    return list(session.scalars(select(League).order_by(League.id)))


def entrant_versions(session: Session, league_id: int) -> Sequence[BotVersion]:
    """The bot versions entered in a league, in entry order."""
    return session.scalars(select(BotVersion).join(LeagueEntrant).where(
        LeagueEntrant.league_id == league_id).order_by(LeagueEntrant.position)).all()


def entrants_of(session: Session, league_ids: Sequence[int]) -> Sequence[BotVersion]:
    """The bot versions entered in any of some leagues, each once."""
    return session.scalars(select(BotVersion).join(LeagueEntrant).where(
        LeagueEntrant.league_id.in_(league_ids))).unique().all()


def entered_versions(session: Session) -> Sequence[BotVersion]:
    """Every bot version entered in any league, each once, with its bot loaded."""
    return session.scalars(select(BotVersion).join(LeagueEntrant).options(
        selectinload(BotVersion.bot))).unique().all()


def leagues_entered(session: Session, version_ids: Sequence[int]) -> list[str]:
    """The names of the leagues some bot versions are entered in, oldest first."""
    return list(session.scalars(select(League.name).join(LeagueEntrant).where(
        LeagueEntrant.bot_version_id.in_(version_ids)).order_by(League.id)).unique())


def delete_league(session: Session, league_id: int) -> None:
    """Delete a league with its entrants, matches and their results (not committed)."""
    session.execute(delete(League).where(League.id == league_id))


def add_league(session: Session, league: League) -> League:
    """Add a league, flushed so that it has its id (not committed)."""
    session.add(league)
    session.flush()
    return league


def add_entrants(session: Session, league_id: int, version_ids: Sequence[int]) -> None:
    """Enter bot versions in a league, in that order (not committed)."""
    session.add_all(LeagueEntrant(league_id=league_id, bot_version_id=version_id,
                                  position=position)
                    for position, version_id in enumerate(version_ids))


def add_matches(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Add a league's scheduled matches, one row of column values each (not committed)."""
    session.execute(insert(Match), rows)
