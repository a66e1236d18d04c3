"""Tables where a signed-in person plays a deal against the bots, in the web process.

A table is one deal of any game, at any seat count it allows: the person at seat 0 and one
opponent in every other seat (a reference policy, one of the person's own bots or a bot of the
ladder, as ``arena.server.table_opponents`` offers them). The match runner plays it as an
asyncio task in the server's event loop, under one clock for every seat (``TABLE_CLOCK``). It
is stored as a match like any other: in the league ``tables`` (made on first use, its settings
marking the seat people play, ``HUMAN_SEATS``), the person as the bot ``human:NAME``, the
opponent as its own version (``policy:NAME`` for a policy) in every seat it plays. The match
row is written leased when the table opens (so its seed stays hidden and no worker takes it),
and done, with its record, when the deal ends. One table per user plays at a time, and at
most ``MAX_TABLES`` in all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.agents import SeatSpec
from arena.agents.human import HUMAN_PREFIX, HumanAgent, HumanSeat
from arena.games import Game, GameError, game_ids, get_spec, load_game
from arena.games.rng import MAX_SEED
from arena.league.boards import HUMAN_SEATS
from arena.league.create import POLICY_PREFIX, LeagueSettings, entrant_spec, new_match_id
from arena.match import DuplicateResult
from arena.match.runner import run_duplicate_async
from arena.match.timecontrol import TimeControl
from arena.sandbox.errors import SandboxError
from arena.server.table_opponents import Opponent, chosen, offered, seat_of
from arena.store import BotKind, League, Match, MatchStatus, SeedSource, Store, ensure_bot_version
from arena.store.leagues import league_named
from arena.store.leases import complete_match, void_match
from arena.store.models import LeagueEntrant, utc_now
from arena.store.outcomes import deal_records, seat_outcomes

log = logging.getLogger(__name__)

TABLES_LEAGUE = "tables"
"""The league every table's match is stored in."""

DEFAULT_GAME = "briscola"
"""The game the form offers first."""

TABLE_CLOCK = TimeControl(decision_ms=30_000, bank_ms=120_000, startup_ms=10_000,
                          ready_ms=5_000)
"""Every seat's clock at a table: 30 s a decision and a bank of 120 s for the deal."""

HUMAN_SEAT = 0
"""The seat the person plays."""

MAX_TABLES = 20
"""The most tables in play at once on one server."""

MAX_BOT_SEATS = 12
"""The most seats played by stored bots (each a container, for an uploaded bot) at once over
all the tables of one server."""

LEASE_S = 3600.0
"""How long a table's match stays leased (far longer than a deal can last under the clock)."""

PERSON_VERSION = "person"
"""The version string of a person's seat in the store."""


class TableError(ValueError):
    """A table that cannot be opened as asked: one line saying why, and the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        """The line, and the status that says it (400 bad input, 409, 503)."""
        super().__init__(message)
        self.status = status


@dataclass
class Table:
    """One table: the person's seat, the deal's task and how far it has got."""

    id: str
    user_id: int
    user: str
    game: str
    players: int
    opponent: Opponent
    seat: SeatSpec
    """The seat spec that plays the opponent, in every seat but the person's."""
    version_id: int | None
    """The opponent's stored version (None for a policy: its version is made on opening)."""
    agent: HumanAgent
    version: int = 0
    """Counts the changes (turns started and ended, actions), for pages waiting on them."""
    match_id: str = ""
    finished: bool = False
    error: str = ""
    """Why the table ended without a stored match, if it did."""
    returns: tuple[float, ...] = ()
    """Each seat's result once the deal has ended (the person's is the first)."""
    task: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def changed(self) -> None:
        """Note a change and wake everyone waiting for one."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, after: int, timeout_s: float) -> None:
        """Return once the table has moved past ``after``, or after ``timeout_s`` seconds."""
        event = self._changed
        if self.version > after:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout_s)

    @property
    def labels(self) -> list[str]:
        """The seats' names, in seat order."""
        return [self.agent.label] + [self.opponent.label] * (self.players - 1)

    @property
    def outcome(self) -> str:
        """``won``, ``lost`` or ``drew`` for the person, once the deal has ended: won when no
        seat did better and some seat did worse (a partner shares the person's result)."""
        if not self.returns:
            return ""
        mine, best, worst = self.returns[0], max(self.returns), min(self.returns)
        return "lost" if mine < best else ("won" if mine > worst else "drew")


class Tables:
    """The tables of one web process: open them, find them, stop them."""

    def __init__(self, store: Store, limit: int = MAX_TABLES,
                 bot_seats: int = MAX_BOT_SEATS) -> None:
        """Tables storing their matches in ``store``, at most ``limit`` in play at once, with
        at most ``bot_seats`` seats played by stored bots."""
        self.store = store
        self.limit = limit
        self.bot_seats = bot_seats
        self._tables: dict[str, Table] = {}
        self._by_user: dict[int, str] = {}
        self._opening: dict[int, int] = {}
        """Users whose table is being opened, and the bot seats it holds for them."""

    def playing(self) -> list[Table]:
        """The tables in play."""
        return [table for table in self._tables.values() if not table.finished]

    def get(self, table_id: str, user_id: int) -> Table | None:
        """The user's table of that id, if there is one."""
        table = self._tables.get(table_id)
        return table if table is not None and table.user_id == user_id else None

    def bot_seats_in_use(self) -> int:
        """The seats stored bots play (or are held for) at the tables in play."""
        return sum(table.players - 1 for table in self.playing()
                   if table.version_id is not None) + sum(self._opening.values())

    def of_user(self, user_id: int) -> Table | None:
        """The user's latest table (in play or finished), if any."""
        table_id = self._by_user.get(user_id)
        return None if table_id is None else self._tables.get(table_id)

    async def open(self, user_id: int, user: str, game: str, opponent: str,
                   players: int | None = None) -> Table:
        """Open a table for the user and start its deal (``players`` seats, the game's
        default when None); ``TableError`` when it cannot be."""
        loaded = table_game(game, players)
        current = self.of_user(user_id)
        in_play = current is not None and not current.finished
        if in_play or user_id in self._opening:
            where = f": /play/{current.id}" if in_play and current is not None else ""
            raise TableError(f"you already have a table in play{where}", 409)
        if len(self.playing()) + len(self._opening) >= self.limit:
            raise TableError(f"all {self.limit} tables of this server are in play: "
                             "try again in a few minutes", 503)
        seed = secrets.randbelow(MAX_SEED + 1)
        self._opening[user_id] = 0
        try:
            choice, seat, version_id = await asyncio.to_thread(
                _opponent_seat, self.store, user_id, opponent, loaded)
            if version_id is not None:
                self._hold_bot_seats(user_id, loaded.num_players - 1)
            table = Table(id="", user_id=user_id, user=user, game=game,
                          players=loaded.num_players, opponent=choice, seat=seat,
                          version_id=version_id, agent=HumanAgent(user))
            table.agent.on_change = table.changed
            table.id = await asyncio.to_thread(_start_match, self.store, table, seed)
        finally:
            self._opening.pop(user_id, None)
        self._tables[table.id] = table
        previous = self._by_user.get(user_id)
        if previous is not None:
            self._tables.pop(previous, None)
        self._by_user[user_id] = table.id
        table.task = asyncio.create_task(self._play(table, seed))
        return table

    def _hold_bot_seats(self, user_id: int, seats: int) -> None:
        """Hold ``seats`` bot seats for the user's table being opened; ``TableError`` (503)
        when the server has not that many free."""
        free = self.bot_seats - self.bot_seats_in_use()
        if seats > free:
            raise TableError(f"this server has {free} of its {self.bot_seats} seats for bots "
                             f"free, and the table needs {seats}: choose a policy or fewer "
                             "players, or try again in a few minutes", 503)
        self._opening[user_id] = seats

    async def _play(self, table: Table, seed: int) -> None:
        """Play the table's deal and store it; a failure voids its match."""
        game = load_game(table.game, table.players)
        seats: list[SeatSpec] = [HumanSeat(table.agent)]
        seats += [table.seat] * (table.players - 1)
        try:
            result = await run_duplicate_async(
                game, seed, seats, TABLE_CLOCK, rotations=1, match_id=table.match_id,
                on_action=lambda _rotation, _state: table.changed())
            if result.void:
                raise TableError("; ".join(deal.void for deal in result.deals))
            table.returns = result.deals[0].returns
            await asyncio.to_thread(_finish_match, self.store, table, result)
        except asyncio.CancelledError:
            table.error = "the server stopped before the deal ended"
            await asyncio.shield(asyncio.to_thread(_void, self.store, table))
            raise
        except Exception as error:
            log.exception("table %s failed", table.id)
            table.error = f"the table failed: {type(error).__name__}"
            await asyncio.to_thread(_void, self.store, table)
        finally:
            table.finished = True
            table.changed()

    async def stop(self) -> None:
        """Stop every table in play (their matches are voided)."""
        tasks = [table.task for table in self.playing() if table.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def table_games() -> list[tuple[str, tuple[int, ...]]]:
    """Every game a person may play at a table, with its seat counts (the default first)."""
    return [(game_id, get_spec(game_id).seats) for game_id in game_ids()]


def table_game(game: str, players: int | None) -> Game:
    """The game of a table (``players`` seats, or its default); ``TableError`` naming the
    problem when there is no such game or seat count."""
    if game not in game_ids():
        raise TableError(f"unknown game {game!r}: choose one of {', '.join(game_ids())}")
    try:
        return load_game(game, players)
    except GameError as error:
        raise TableError(str(error)) from None


def _opponent_seat(store: Store, user_id: int, key: str,
                   game: Game) -> tuple[Opponent, SeatSpec, int | None]:
    """The user's chosen opponent, the seat spec that plays it in ``game`` and its stored
    version; ``TableError`` when the user may not choose it or it cannot play the game."""
    with store.session() as session:
        choice = chosen(session, user_id, key)
        if choice is None:
            keys = ", ".join(item.key for item in offered(session, user_id))
            raise TableError(f"unknown opponent {key!r}: choose one of {keys}")
        if not choice.plays(game.id):
            raise TableError(f"{choice.label} does not play {game.id}")
        try:
            seat, version = seat_of(session, choice)
            seat.check(game)
        except (LookupError, ValueError, SandboxError) as error:
            raise TableError(f"{choice.label} cannot play {game.id}: {error}") from None
        return choice, seat, None if version is None else version.id


def _owner(table: Table) -> str:
    """The lease owner of a table's match."""
    return f"table:{table.match_id}"


def _start_match(store: Store, table: Table, seed: int) -> str:
    """Write the table's match, leased by the table, in the ``tables`` league (a second try
    when another table made the league at the same moment); its id."""
    match_id = new_match_id()
    table.match_id = match_id
    for attempt in range(2):
        with store.session() as session:
            try:
                league = league_named(session, TABLES_LEAGUE)
                if league is None:
                    settings = LeagueSettings(time_control=TABLE_CLOCK).to_dict()
                    league = League(name=TABLES_LEAGUE, games=game_ids(), deals=1,
                                    rounds=1, settings={**settings, HUMAN_SEATS: [HUMAN_SEAT]},
                                    seed_secret=secrets.token_bytes(32))
                    session.add(league)
                    session.flush()
                elif table.game not in league.games:  # a game registered since
                    league.games = [*league.games, table.game]
                person = ensure_bot_version(
                    session, HUMAN_PREFIX + table.user, PERSON_VERSION, BotKind.PROCESS,
                    fingerprint=HUMAN_PREFIX + table.user, language="human")
                opponent_id = table.version_id
                if opponent_id is None:
                    spec = entrant_spec(table.opponent.key)
                    opponent_id = ensure_bot_version(
                        session, POLICY_PREFIX + table.opponent.key, spec.version, spec.kind,
                        fingerprint=spec.fingerprint, games=spec.games,
                        language=spec.language).id
                _enter(session, league.id, [person.id, opponent_id])
                entrants = [person.id] + [opponent_id] * (table.players - 1)
                count = session.scalar(select(func.count()).select_from(Match).where(
                    Match.league_id == league.id)) or 0
                now = utc_now()
                session.add(Match(
                    id=match_id, league_id=league.id, game_id=table.game,
                    params={}, seats=table.players, seed=seed, seed_source=SeedSource.SECRET,
                    position=count, entrants=entrants, rotations=[0],
                    status=MatchStatus.LEASED, attempts=1, lease_owner=_owner(table),
                    lease_expires=now + timedelta(seconds=LEASE_S), started_at=now))
                session.commit()
                return match_id
            except IntegrityError:
                session.rollback()
                if attempt:
                    raise
    raise AssertionError("unreachable")


def _enter(session: Session, league_id: int, version_ids: list[int]) -> None:
    """Enter the versions in the league where they are not yet (flushed, not committed)."""
    entered = set(session.scalars(select(LeagueEntrant.bot_version_id).where(
        LeagueEntrant.league_id == league_id)))
    last = session.scalar(select(func.max(LeagueEntrant.position)).where(
        LeagueEntrant.league_id == league_id))
    position = -1 if last is None else last
    for version_id in version_ids:
        if version_id not in entered:
            position += 1
            session.add(LeagueEntrant(league_id=league_id, bot_version_id=version_id,
                                      position=position))
    session.flush()


def _finish_match(store: Store, table: Table, result: DuplicateResult) -> None:
    """Store the played deal as the match's result and record."""
    with store.session() as session:
        entrants = session.get_one(Match, table.match_id).entrants
        if not complete_match(session, table.match_id, _owner(table),
                              seat_outcomes(result, entrants), deal_records(result)):
            raise TableError(f"the match {table.match_id} was no longer the table's to store")


def _void(store: Store, table: Table) -> None:
    """Void the table's match, with the reason."""
    with store.session() as session:
        void_match(session, table.match_id, table.error)
