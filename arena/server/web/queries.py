"""Read-only views of the store for the web pages: leaderboards, bots, leagues and matches.

Leaderboards and played sets are rebuilt from the stored deal records (as ``arena
leaderboard`` does) and kept until another match finishes: the key of the cache is the count
of done matches and the latest finish time.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from arena.league.boards import leaderboards, rated_leagues
from arena.league.compare import (
    DEFAULT_CORRECTION,
    BotSummary,
    PairComparison,
    SetScore,
    bot_summaries,
    compare_pairs,
    family_size,
    set_score,
)
from arena.league.create import LeagueError, league_policy
from arena.league.forfeits import FaultCount, ForfeitPolicy
from arena.league.ratings import Rating
from arena.league.report import LeagueReport, build_report
from arena.league.status import (
    LeagueStatus,
    PlayedSet,
    bot_names,
    find_league,
    league_bots,
    league_languages,
    league_status,
    left_out,
    scored_sets,
)
from arena.server.records import Viewer, viewable_records
from arena.store import (
    BotVersion,
    League,
    Match,
    MatchStatus,
    Store,
)
from arena.store.bots import bot_named, version_owners, versions_with_bots
from arena.store.leagues import all_leagues, entered_versions, league_names, leagues_entered
from arena.store.matches import done_version, league_matches
from arena.store.results import recent_returns, seat_results

BOT_MATCHES = 50
"""How many of a bot's latest matches its page lists."""


class NotFound(LookupError):
    """A page asked for a bot, league, match or game that is not in the store."""


@dataclass(frozen=True)
class Boards:
    """Every finished match rated: the overall and per-game leaderboards and the sets."""

    overall: list[Rating[str]]
    per_game: dict[str, list[Rating[str]]]
    played: list[PlayedSet]
    bots: dict[str, str]
    """Each display name in the tables to its bot's name in the store (the page's key)."""
    scores: list[SetScore[str]] = field(default_factory=list)
    faults: dict[str, dict[str, FaultCount]] = field(default_factory=dict)
    """Per game, each bot's forfeited deals by reason code."""
    overall_faults: dict[str, FaultCount] = field(default_factory=dict)
    """Each bot's forfeited deals over every game."""
    notes: dict[str, str] = field(default_factory=dict)
    """Per game (``""``: overall), how forfeits score and what the table leaves out."""
    policies: list[ForfeitPolicy] = field(default_factory=list)
    """The forfeit policy of each played set's league."""
    sets: dict[str, Counter[str]] = field(default_factory=dict)
    """Per game (``""``: overall), the duplicate sets each bot's rating rests on."""


@dataclass(frozen=True)
class MatchRow:
    """One match of a league as its page lists it."""

    id: str
    game: str
    status: str
    seats: tuple[str, ...]
    attempts: int
    last_error: str


@dataclass(frozen=True)
class LeaguePage:
    """A league: its status counts, entrants and matches in schedule order."""

    name: str
    status: LeagueStatus
    entrants: list[tuple[str, str]]
    """(display name, bot name) in creation order."""
    matches: list[MatchRow]
    deals: int
    rounds: int
    created_at: datetime


@dataclass(frozen=True)
class SeatLine:
    """One entrant of a match: its display name, bot name and result, if finished."""

    entrant: int
    name: str
    bot: str
    total: float | None = None
    returns: tuple[float, ...] = ()
    reason: str = ""


@dataclass(frozen=True)
class MatchPage:
    """A match: where it stands, its entrants and its stored deal records."""

    id: str
    league: str
    game: str
    status: str
    seed: int | None
    """The deal seed once the match is done; None before (nothing of the deal is shown)."""
    seed_source: str
    """``secret`` (from the league's secret) or ``given`` (from a seed a user gave)."""
    entrants: list[SeatLine]
    records: list[dict[str, Any]]
    last_error: str


@dataclass(frozen=True)
class BotPage:
    """A bot: its versions, ratings per game, results per game and head to head."""

    name: str
    display: list[str]
    versions: list[BotVersion]
    overall: Rating[str] | None
    overall_rank: int | None
    ratings: dict[str, tuple[int, Rating[str]]]
    summaries: list[BotSummary[str]]
    pairs: list[PairComparison[str]]
    leagues: list[str]
    matches: list[tuple[str, str, float]]
    """Its latest finished matches: id, game and its total return, newest first."""
    correction: str = DEFAULT_CORRECTION
    """The multiple-comparison correction of the pair tests."""
    comparisons: int = 0
    """How many pair tests the correction was made over (every tested pair of every game)."""
    faults: dict[str, FaultCount] = field(default_factory=dict)
    """Per game, its forfeited deals by reason code."""
    overall_faults: FaultCount = field(default_factory=lambda: FaultCount(Counter()))
    """Its forfeited deals over every game."""


class Queries:
    """The web pages' reads of one store, with the leaderboards cached."""

    def __init__(self, store: Store, rate_humans: bool = False) -> None:
        """Read from ``store``; people's tables are rated only with ``rate_humans``."""
        self.store = store
        self.rate_humans = rate_humans
        self._lock = threading.Lock()
        self._boards: tuple[tuple[int, datetime | None], Boards] | None = None
        self._reports: dict[tuple[str, int, datetime | None], LeagueReport[str]] = {}

    def _version(self, session: Session, league_id: int | None = None
                 ) -> tuple[int, datetime | None]:
        """The count of done matches and the latest finish: what the caches key on."""
        return done_version(session, league_id)

    def boards(self) -> Boards:
        """The leaderboards of every finished match, rebuilt when a match has finished."""
        with self._lock:
            with self.store.session() as session:
                key = self._version(session)
            if self._boards is not None and self._boards[0] == key:
                return self._boards[1]
            tables = leaderboards(self.store, None, None, self.rate_humans)
            with self.store.session() as session:
                scored, _ = scored_sets(session, rated_leagues(all_leagues(session),
                                                               self.rate_humans))
                played = [(entry.match, entry.result) for entry in scored]
                versions = entered_versions(session)
                names = {display: version.bot.name
                         for version_id, display in bot_names(versions).items()
                         for version in versions if version.id == version_id}
            scores = [score for entry in scored if (score := set_score(
                entry.match.seats, entry.result, policy=entry.policy)) is not None]
            boards = Boards(overall=tables.overall, per_game=tables.per_game, played=played,
                            bots=names, scores=scores, faults=tables.faults,
                            overall_faults=tables.overall_faults(),
                            notes={"": tables.note(None),
                                   **{game: tables.note(game) for game in tables.per_game}},
                            policies=[entry.policy for entry in scored],
                            sets={"": tables.set_counts(None),
                                  **{game: tables.set_counts(game)
                                     for game in tables.per_game}})
            self._boards = (key, boards)
            return boards

    def bot(self, name: str) -> BotPage:
        """A bot's page data, or ``NotFound``."""
        with self.store.session() as session:
            bot = bot_named(session, name, with_versions=True)
            if bot is None:
                raise NotFound(f"no bot named {name!r}")
            versions = list(bot.versions)
            leagues = leagues_entered(session, [v.id for v in versions])
            matches = recent_returns(session, [v.id for v in versions], BOT_MATCHES)
        boards = self.boards()
        display = [shown for shown, owner in boards.bots.items() if owner == name]
        mine = set(display)
        ratings = {game: (rank, rating) for game, table in boards.per_game.items()
                   for rank, rating in enumerate(table, 1) if rating.bot in mine}
        overall = next(((rank, rating) for rank, rating in enumerate(boards.overall, 1)
                        if rating.bot in mine), None)
        summaries = [summary for (_, bot_name), summary in
                     bot_summaries(boards.scores).items() if bot_name in mine]
        every = compare_pairs(boards.scores, DEFAULT_CORRECTION)
        pairs = [pair for (_, bot_name, _), pair in every.items() if bot_name in mine]
        faults = {game: _merged(counts, mine) for game, counts in boards.faults.items()
                  if any(bot in counts for bot in mine)}
        return BotPage(name=name, display=display, versions=versions,
                       overall=overall[1] if overall else None,
                       overall_rank=overall[0] if overall else None, ratings=ratings,
                       summaries=summaries, pairs=pairs, leagues=leagues, matches=matches,
                       correction=DEFAULT_CORRECTION, comparisons=family_size(every.values()),
                       faults=faults, overall_faults=_merged(boards.overall_faults, mine))

    def leagues(self) -> list[LeagueStatus]:
        """Every league's status, oldest first."""
        with self.store.session() as session:
            names = league_names(session)
            return [league_status(session, name) for name in names]

    def league(self, name: str) -> LeaguePage:
        """A league's page data, or ``NotFound``."""
        with self.store.session() as session:
            league = _league(session, name)
            status = league_status(session, name)
            names = league_bots(session, league)
            owners = version_owners(session, names)
            rows = league_matches(session, league.id)
            matches = [MatchRow(id=row.id, game=row.game_id, status=row.status.value,
                                seats=tuple(names.get(e, str(e)) for e in row.entrants),
                                attempts=row.attempts, last_error=row.last_error or "")
                       for row in rows]
            return LeaguePage(name=league.name, status=status,
                              entrants=[(shown, owners.get(version, shown))
                                        for version, shown in names.items()],
                              matches=matches, deals=league.deals, rounds=league.rounds,
                              created_at=league.created_at)

    def report(self, name: str) -> LeagueReport[str]:
        """A league's comparison report (cached until another of its matches finishes)."""
        with self.store.session() as session:
            league = _league(session, name)
            key = (league.name, *self._version(session, league.id))
        with self._lock:
            cached = self._reports.get(key)
        if cached is not None:
            return cached
        with self.store.session() as session:
            league = _league(session, name)
            scored, _ = scored_sets(session, [league])
            names = league_bots(session, league)
            languages = league_languages(session, league)
            void = left_out(session, [league.id])
            policy = league_policy(league.settings or {})
        # What a bot wrote (its log, and the details that quote it) is its owner's business:
        # the public report lists where and why each fault happened only.
        report = build_report(
            [(entry.match, entry.result) for entry in scored], league.name,
            list(names.values()), languages=languages, policy=policy,
            faults=[replace(fault, log="", detail="") for entry in scored
                    for fault in entry.faults()],
            void={game: (out.sets, out.deals) for game, out in void.items()})
        with self._lock:
            self._reports[key] = report
        return report

    def match(self, match_id: str, viewer: Viewer = None) -> MatchPage:
        """A match's page data, its records read for ``viewer`` (a user id, or None for
        nobody), or ``NotFound``."""
        with self.store.session() as session:
            match = session.get(Match, match_id)
            if match is None:
                raise NotFound(f"no match {match_id!r}")
            league = session.get(League, match.league_id)
            versions = versions_with_bots(session, match.entrants)
            names = league_bots(session, league) if league is not None else {}
            owners = {version.id: version.bot.name for version in versions}
            results = {row.seat: row for row in seat_results(session, match.id)}
            lines = []
            for entrant, version in enumerate(match.entrants):
                row = results.get(entrant)
                lines.append(SeatLine(
                    entrant=entrant, name=names.get(version, owners.get(version, "?")),
                    bot=owners.get(version, ""), total=row.total_return if row else None,
                    returns=tuple(row.returns) if row else (), reason=row.reason if row else ""))
            done = match.status is MatchStatus.DONE
            records = viewable_records(session, match, viewer) if done else []
            return MatchPage(id=match.id, league=league.name if league else "",
                             game=match.game_id, status=match.status.value,
                             seed=match.seed if done else None,
                             seed_source=match.seed_source.value, entrants=lines,
                             records=records, last_error=match.last_error or "")


def _merged(counts: dict[str, FaultCount], shown: set[str]) -> FaultCount:
    """The forfeits of a bot's display names (its versions) together."""
    total = FaultCount(Counter())
    for name in shown:
        if name in counts:
            total.faults.update(counts[name].faults)
    return total


def _league(session: Session, name: str) -> League:
    """The league of that name, or ``NotFound``."""
    try:
        return find_league(session, name)
    except LeagueError as error:
        raise NotFound(str(error)) from None


def game_names(boards: Boards, known: Sequence[str]) -> list[str]:
    """The games with a leaderboard, in registry order, then any others."""
    return [game for game in known if game in boards.per_game] + sorted(
        game for game in boards.per_game if game not in known)
