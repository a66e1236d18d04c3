"""What the store says about a league: its matches by status, its standings, its played sets,
its forfeits by reason code and the void sets its tables leave out.

Played sets are rebuilt from the stored deal records as ``(ScheduledMatch, DuplicateResult)``
pairs, each bot named for display (``name``, or ``name version`` when a league holds two
versions of one bot), so ratings, comparisons and reports read a league exactly as if it had
just been played. Matches are ordered as scheduled (game in league order, round, table,
deal), by the place the store keeps beside each match's random id.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from arena.agents import AgentExit
from arena.agents.human import HUMAN_PREFIX
from arena.league.create import POLICY_PREFIX, LeagueError, league_policy
from arena.league.forfeits import (
    DEFAULT_POLICY,
    FaultCount,
    FaultEntry,
    ForfeitPolicy,
    deal_faults,
)
from arena.league.schedule import ScheduledMatch
from arena.match import DealResult, DuplicateResult, EntrantResult, MatchRecord
from arena.match.faults import reason_code
from arena.store import BotVersion, League, Match, MatchStatus, SeedSource
from arena.store.leagues import (
    all_leagues,
    entrant_versions,
    entrants_of,
    league_named,
    league_names,
)
from arena.store.matches import (
    done_entrants,
    done_matches,
    game_status_counts,
    stored_records,
    unfinished_ids,
    void_matches,
    void_rotations,
)
from arena.store.results import bot_faults, league_returns, version_faults

PlayedSet = tuple[ScheduledMatch[str], DuplicateResult]


@dataclass
class LeagueStatus:
    """How far a league is: matches per status, overall and per game, and the void ones."""

    name: str
    games: list[str]
    bots: list[str]
    total: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    by_game: dict[str, Counter[str]] = field(default_factory=dict)
    void: list[tuple[str, str]] = field(default_factory=list)
    """(match id, why) of every void match."""
    seeds: str = SeedSource.SECRET.value
    """Where the deal seeds come from: ``secret`` (the league's secret) or ``given`` (a seed
    the user gave: reproducible, not secret)."""
    forfeit_policy: str = DEFAULT_POLICY.value
    """How a forfeited deal scores: ``loss`` or ``stand`` (``arena.league.forfeits``)."""
    faults: dict[str, FaultCount] = field(default_factory=dict)
    """Each bot's forfeited deals by reason code, over the done matches."""
    void_deals: int = 0
    """Deals of the void matches: left out of every table (the arena failed)."""
    sets: Counter[str] = field(default_factory=Counter)
    """The done sets each bot played (what its ratings rest on)."""

    @property
    def forfeiters(self) -> list[str]:
        """The bots that forfeited a deal, most forfeits first."""
        return [bot for bot, count in sorted(self.faults.items(),
                                             key=lambda item: (-item[1].forfeits, item[0]))
                if count.forfeits]

    @property
    def done(self) -> int:
        """Matches finished (done or void)."""
        return self.by_status[MatchStatus.DONE.value] + self.by_status[MatchStatus.VOID.value]

    @property
    def finished(self) -> bool:
        """True when no match is left to run."""
        return self.done == self.total

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"name": self.name, "games": self.games, "bots": self.bots, "seeds": self.seeds,
                "total": self.total,
                "status": {status.value: self.by_status[status.value] for status in MatchStatus},
                "by_game": {game: {status.value: counts[status.value] for status in MatchStatus}
                            for game, counts in self.by_game.items()},
                "void": [{"match": match_id, "reason": reason} for match_id, reason in self.void],
                "void_deals": self.void_deals, "forfeit_policy": self.forfeit_policy,
                "entrants": [{"bot": bot, "sets": self.sets[bot],
                              **self.faults.get(bot, FaultCount(Counter())).to_dict()}
                             for bot in self.bots]}


def find_league(session: Session, name: str) -> League:
    """The league of that name, or ``LeagueError`` listing the leagues there are."""
    league = league_named(session, name)
    if league is None:
        names = league_names(session)
        known = ", ".join(names) if names else "none yet (arena league create)"
        raise LeagueError(f"no league named {name!r}; leagues: {known}")
    return league


def bot_names(versions: Iterable[BotVersion]) -> dict[int, str]:
    """A display name per bot version: the bot's name, with the version when two share it."""
    versions = list(versions)
    counts = Counter(version.bot.name for version in versions)
    names = {}
    for version in versions:
        name = version.bot.name.removeprefix(POLICY_PREFIX).removeprefix(HUMAN_PREFIX) + (
            " (policy)" if version.bot.name.startswith(POLICY_PREFIX)
            else " (person)" if version.bot.name.startswith(HUMAN_PREFIX) else "")
        if counts[version.bot.name] > 1:
            name += f" {version.version or version.fingerprint[:8]}"
            if sum(v.bot.name == version.bot.name and v.version == version.version
                   for v in versions) > 1:
                name += f" {version.fingerprint[:8]}"
        names[version.id] = name
    return names


def league_languages(session: Session, league: League) -> dict[str, str]:
    """The language of each of the league's entrants, by display name (where known)."""
    versions = entrant_versions(session, league.id)
    names = bot_names(versions)
    return {names[version.id]: version.language for version in versions if version.language}


def league_bots(session: Session, league: League) -> dict[int, str]:
    """The league's entrants in creation order: bot version id to display name."""
    return bot_names(entrant_versions(session, league.id))


def league_seeds(league: League) -> SeedSource:
    """Where a league's deal seeds come from: its secret, or a seed the user gave."""
    return SeedSource.SECRET if league.seed_secret is not None else SeedSource.GIVEN


def scheduled(match: Match, names: dict[int, str]) -> ScheduledMatch[str]:
    """The schedule entry of a match row, with its bots by display name."""
    return ScheduledMatch(game=match.game_id, round=match.round_index, table=match.table_index,
                          deal=match.deal_index, seats=tuple(names[e] for e in match.entrants),
                          seed=match.seed, rotations=len(match.rotations))


def league_status(session: Session, name: str) -> LeagueStatus:
    """The league's matches counted by status, overall and per game."""
    league = find_league(session, name)
    names = league_bots(session, league)
    status = LeagueStatus(name=league.name, games=list(league.games), bots=list(names.values()),
                          seeds=league_seeds(league).value)
    for game, match_status, count in game_status_counts(session, league.id):
        status.total += count
        status.by_status[match_status.value] += count
        status.by_game.setdefault(game, Counter())[match_status.value] += count
    status.by_game = {game: status.by_game.get(game, Counter()) for game in league.games}
    void = void_matches(session, league.id)
    status.void = [(row.id, row.last_error or "") for row in void]
    status.void_deals = sum(len(row.rotations or ()) for row in void)
    status.forfeit_policy = league_policy(league.settings or {}).value
    status.faults = seat_faults(session, [league.id], names)
    status.sets = Counter(names[version] for entrants in done_entrants(session, league.id)
                          for version in set(entrants) if version in names)
    session.commit()
    return status


def seat_faults(session: Session, league_ids: Sequence[int], names: dict[int, str],
                game: str | None = None) -> dict[str, FaultCount]:
    """Each bot's forfeited deals by reason code over the done matches of some leagues (every
    bot of ``names`` listed, with or without)."""
    counts = {name: FaultCount(Counter()) for name in names.values()}
    for version, faults in version_faults(session, league_ids, game):
        count = counts.setdefault(names.get(version, str(version)), FaultCount(Counter()))
        count.faults.update({str(reason): int(value) for reason, value in (faults or {}).items()})
    return counts


def faults_by_bot(session: Session, bot_ids: Sequence[int]) -> dict[int, FaultCount]:
    """Each bot's forfeited deals by reason code over every done match, all its versions."""
    counts = {bot_id: FaultCount(Counter()) for bot_id in bot_ids}
    for bot_id, faults in bot_faults(session, bot_ids):
        counts[bot_id].faults.update({str(reason): int(value)
                                      for reason, value in (faults or {}).items()})
    return counts


@dataclass(frozen=True)
class LeftOut:
    """What a table leaves out: the sets (and their deals) the arena voided, no contest."""

    sets: int = 0
    deals: int = 0

    def text(self) -> str:
        """One line for a table's caption."""
        if not self.sets:
            return "no deal left out"
        return (f"left out: {self.deals} deals of {self.sets} void sets (VOID_INFRA: the "
                "arena failed; no contest)")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"void_sets": self.sets, "void_deals": self.deals,
                "reason": "VOID_INFRA" if self.sets else None}


def left_out(session: Session, league_ids: Sequence[int]) -> dict[str, LeftOut]:
    """Per game, the void matches of some leagues and their deals."""
    found: dict[str, list[int]] = {}
    for game, rotations in void_rotations(session, league_ids):
        entry = found.setdefault(game, [0, 0])
        entry[0] += 1
        entry[1] += len(rotations or ())
    return {game: LeftOut(sets, deals) for game, (sets, deals) in found.items()}


def pending_matches(session: Session, league_id: int) -> list[str]:
    """The ids of a league's matches not yet done or void (leased ones too), in schedule order."""
    ids = unfinished_ids(session, league_id)
    session.commit()
    return ids


def played_sets(session: Session, leagues: Sequence[League] | None = None,
                game: str | None = None) -> tuple[list[PlayedSet], dict[int, str]]:
    """The done matches of some leagues (all by default), rebuilt as played sets in schedule
    order (league by league), and the display name of every bot version in them."""
    scored, names = scored_sets(session, leagues, game)
    return [(entry.match, entry.result) for entry in scored], names


@dataclass(frozen=True)
class ScoredSet:
    """A played set with its match id and its league's forfeit policy."""

    match_id: str
    match: ScheduledMatch[str]
    result: DuplicateResult
    policy: ForfeitPolicy

    def faults(self) -> list[FaultEntry[str]]:
        """Every forfeited seat of its deals."""
        return deal_faults(self.match.game, self.match_id, self.match.seats, self.result)


def scored_sets(session: Session, leagues: Sequence[League] | None = None,
                game: str | None = None) -> tuple[list[ScoredSet], dict[int, str]]:
    """``played_sets`` with each set's match id and its league's forfeit policy."""
    if leagues is None:
        leagues = all_leagues(session)
    names = bot_names(entrants_of(session, [league.id for league in leagues]))
    played: list[ScoredSet] = []
    for league in leagues:
        policy = league_policy(league.settings or {})
        matches = done_matches(session, league.id, game)
        records = stored_records(session, [match.id for match in matches])
        for match in matches:
            played.append(ScoredSet(match.id, scheduled(match, names),
                                    rebuild_result(match, records.get(match.id, []), names),
                                    policy))
    session.commit()
    return played, names


def rebuild_result(match: Match, records: Sequence[dict[str, Any]],
                   names: dict[int, str]) -> DuplicateResult:
    """A finished match's ``DuplicateResult`` from its stored deal records."""
    seats = match.seats
    deals = [_deal(record) for record in records]
    entrants = []
    for index, version in enumerate(match.entrants):
        mine = [(deal, deal.entrants.index(index)) for deal in deals]
        entrants.append(EntrantResult(
            index=index, label=names.get(version, str(version)), agent={"bot_version": version},
            seats=tuple(seat for _, seat in mine),
            returns=tuple(deal.returns[seat] for deal, seat in mine),
            reasons=tuple(deal.reasons[seat] for deal, seat in mine), exit=AgentExit()))
    return DuplicateResult(game=match.game_id, players=seats, params=dict(match.params),
                           seed=match.seed, deals=tuple(deals), entrants=tuple(entrants))


def _deal(data: dict[str, Any]) -> DealResult:
    """One deal's result from its stored record (``rotation`` and ``entrants`` added)."""
    entrants = tuple(int(entrant) for entrant in data["entrants"])
    record = MatchRecord.from_dict({key: value for key, value in data.items()
                                    if key not in ("rotation", "entrants")})
    reports = record.conduct.seats if record.conduct is not None else ()
    reasons = tuple(reason_code(report.reason) for report in reports) or (
        reason_code("OK"),) * record.players
    return DealResult(
        rotation=int(data["rotation"]), entrants=entrants, labels=record.policies,
        returns=record.returns, reasons=reasons,
        details=tuple(report.detail for report in reports) or ("",) * record.players,
        forfeited=tuple(report.forfeited for report in reports) or (False,) * record.players,
        faults=record.conduct.faults if record.conduct is not None else (), record=record)


def standings(session: Session, league_id: int, names: dict[int, str]
              ) -> dict[str, list[tuple[str, float]]]:
    """Per game, each bot's mean return per deal over the done matches, best first."""
    rows = league_returns(session, league_id)
    session.commit()
    sums: dict[str, dict[int, list[float]]] = {}
    for game, version, total, returns in rows:
        entry = sums.setdefault(game, {}).setdefault(version, [0.0, 0.0])
        entry[0] += total
        entry[1] += len(returns) or 1
    return {game: sorted(((names.get(version, str(version)), total / count)
                          for version, (total, count) in bots.items()),
                         key=lambda item: (-item[1], item[0]))
            for game, bots in sums.items()}
