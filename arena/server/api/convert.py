"""Store rows and league results as the API's protobuf messages."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from arena.league.forfeits import FaultCount
from arena.league.ratings import Rating
from arena.league.status import LeagueStatus
from arena.protocol.schema import platform as pb
from arena.store import Bot, BotVersion, Match, MatchStatus

MATCH_STATES = {
    MatchStatus.PENDING: pb.MATCH_STATE_PENDING,
    MatchStatus.LEASED: pb.MATCH_STATE_RUNNING,
    MatchStatus.DONE: pb.MATCH_STATE_DONE,
    MatchStatus.VOID: pb.MATCH_STATE_VOID,
}
"""The API's state of each match status (a leased match is running)."""


def timestamp(moment: datetime | None) -> str:
    """An RFC 3339 time in UTC, or empty."""
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else ""


def version_info(version: BotVersion) -> pb.BotVersionInfo:
    """One bot version."""
    return pb.BotVersionInfo(version=version.version, image_ref=version.image_ref or "",
                             image_id=version.image_id or "", language=version.language,
                             games=[str(game) for game in version.games],
                             created_at=timestamp(version.created_at))


def bot_info(bot: Bot, faults: FaultCount | None = None) -> pb.BotInfo:
    """A bot with its versions, oldest first, and its forfeited deals by reason code."""
    return pb.BotInfo(name=bot.name, owner=bot.owner.name if bot.owner is not None else "",
                      created_at=timestamp(bot.created_at),
                      versions=[version_info(version) for version in bot.versions],
                      faults=dict(faults.faults) if faults else {},
                      forfeits=faults.forfeits if faults else 0)


def league_status(status: LeagueStatus, running: bool) -> pb.LeagueStatus:
    """A league's progress."""
    counts = status.by_status
    return pb.LeagueStatus(
        name=status.name, games=status.games, bots=status.bots, total=status.total,
        pending=counts[MatchStatus.PENDING.value], leased=counts[MatchStatus.LEASED.value],
        done=counts[MatchStatus.DONE.value], void=counts[MatchStatus.VOID.value],
        running=running, seeds=status.seeds, forfeit_policy=status.forfeit_policy,
        void_deals=status.void_deals, sets={bot: status.sets[bot] for bot in status.bots},
        forfeits=[pb.BotForfeits(bot=bot, faults=dict(count.faults), forfeits=count.forfeits)
                  for bot, count in status.faults.items()])


def match_info(match: Match, names: dict[int, str]) -> pb.MatchInfo:
    """A match: its opaque id, game, parameters, state and entrants by display name (never its
    seed)."""
    return pb.MatchInfo(id=match.id, game=match.game_id, state=MATCH_STATES[match.status],
                        entrants=[names.get(entrant, str(entrant)) for entrant in match.entrants],
                        deals=len(match.rotations),
                        params_json=json.dumps(match.params or {}, sort_keys=True))


def rating_entries(ratings: Sequence[Rating[Any]],
                   faults: Mapping[str, FaultCount] | None = None,
                   sets: Mapping[str, int] | None = None) -> list[pb.RatingEntry]:
    """A leaderboard, best first, with each bot's forfeited deals by reason code and the sets
    its rating rests on."""
    entries = []
    for rating in ratings:
        count = (faults or {}).get(str(rating.bot))
        entries.append(pb.RatingEntry(
            bot=str(rating.bot), mu=rating.mu, sigma=rating.sigma,
            conservative=rating.conservative, contests=rating.contests,
            faults=dict(count.faults) if count else {}, forfeits=count.forfeits if count else 0,
            sets=(sets or {}).get(str(rating.bot), 0)))
    return entries
