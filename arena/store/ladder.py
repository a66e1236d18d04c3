"""The ladder's rows: its members (active or retired), the sets counted per bot, pair and game.

A ladder is a league that keeps growing: its members are league entrants (a retired one has
``retired_at``), its sets are match rows appended as they are scheduled. Each function works in
the session's transaction and leaves committing to the caller.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store.models import BotVersion, LeagueEntrant, Match, MatchStatus, utc_now


@dataclass
class LadderCounts:
    """Sets scheduled (pending, running or done; void ones left out) per bot version, pair of
    versions and game, and how many are not finished yet."""

    per_bot: Counter[int] = field(default_factory=Counter)
    per_pair: Counter[frozenset[int]] = field(default_factory=Counter)
    per_game: Counter[str] = field(default_factory=Counter)
    unfinished: int = 0
    done: int = 0


def members(session: Session, league_id: int, *, active: bool = True) -> list[LeagueEntrant]:
    """A ladder's members in join order: the active ones (or every one, retired too)."""
    query = select(LeagueEntrant).where(LeagueEntrant.league_id == league_id)
    if active:
        query = query.where(LeagueEntrant.retired_at.is_(None))
    return list(session.scalars(query.order_by(LeagueEntrant.position)))


def join(session: Session, league_id: int, version_id: int, base_sets: int) -> bool:
    """Enter a bot version (credited with ``base_sets``) and retire the other active versions
    of its bot; False when the version is already a member (active or retired)."""
    entrants = members(session, league_id, active=False)
    if any(entrant.bot_version_id == version_id for entrant in entrants):
        return False
    bot_id = session.get_one(BotVersion, version_id).bot_id
    now = utc_now()
    for entrant in entrants:
        if entrant.retired_at is None and entrant.bot_version.bot_id == bot_id:
            entrant.retired_at = now
    position = max((entrant.position for entrant in entrants), default=-1) + 1
    session.add(LeagueEntrant(league_id=league_id, bot_version_id=version_id,
                              position=position, base_sets=base_sets))
    session.flush()
    return True


def counts(session: Session, league_id: int) -> LadderCounts:
    """The ladder's sets counted per bot version, pair and game (void sets left out)."""
    found = LadderCounts()
    rows = session.execute(select(Match.game_id, Match.entrants, Match.status).where(
        Match.league_id == league_id, Match.status != MatchStatus.VOID))
    for game, entrants, status in rows:
        bots = sorted(set(entrants))
        found.per_bot.update(bots)
        found.per_pair.update(frozenset(pair) for pair in combinations(bots, 2))
        found.per_game[game] += 1
        if status == MatchStatus.DONE:
            found.done += 1
        else:
            found.unfinished += 1
    return found


def next_position(session: Session, league_id: int) -> int:
    """The place in the schedule of the ladder's next set."""
    last = session.scalar(select(func.max(Match.position)).where(Match.league_id == league_id))
    return 0 if last is None else int(last) + 1


def lease_owners(session: Session, league_id: int) -> set[str]:
    """The owners of the ladder's leased sets."""
    return {owner for owner in session.scalars(select(Match.lease_owner).where(
        Match.league_id == league_id, Match.status == MatchStatus.LEASED)) if owner}


def done_sets(session: Session, league_id: int) -> Counter[int]:
    """The done sets of the ladder per bot version (what its ratings rest on)."""
    found: Counter[int] = Counter()
    for (entrants,) in session.execute(select(Match.entrants).where(
            Match.league_id == league_id, Match.status == MatchStatus.DONE)):
        found.update(set(entrants))
    return found
