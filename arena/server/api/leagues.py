"""Leagues on the service: created between uploaded bots and policies, run in the background."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

import grpc

from arena.league.create import (
    ALL_GAMES,
    EntrantSpec,
    LeagueError,
    LeagueSettings,
    create_league,
    parse_forfeit_policy,
)
from arena.league.forfeits import DEFAULT_POLICY
from arena.league.status import LeagueStatus, find_league, league_bots, league_status
from arena.match.faults import DEFAULT_STRIKES
from arena.match.timecontrol import TimeControl
from arena.policies import policy_names
from arena.server.api.bots import find_bot
from arena.server.api.errors import ApiError, invalid
from arena.store import BotKind, League, Match, Store
from arena.store.admin import disabled_reason
from arena.store.matches import league_matches

LOG = logging.getLogger("arena.server.api")


def entrant_of(store: Store, name: str) -> str | EntrantSpec:
    """A league entrant named on the service: a reference policy, or an uploaded bot's latest
    version (NOT_FOUND when there is no such bot)."""
    if name in policy_names():
        return name
    with store.session() as session:
        bot = find_bot(session, name)
        if bot.owner_id is None:
            raise invalid(f"{name!r} is not a bot uploaded to this service")
        if refusal := disabled_reason(bot):
            raise ApiError(grpc.StatusCode.FAILED_PRECONDITION,
                           f"{refusal}: it cannot join a league")
        if not bot.versions:
            raise ApiError(grpc.StatusCode.FAILED_PRECONDITION,
                           f"the bot {name!r} has no version yet; submit one")
        version = bot.versions[-1]
        return EntrantSpec(name=bot.name, version=version.version, kind=BotKind.DOCKER,
                           image_ref=version.image_ref, image_id=version.image_id,
                           fingerprint=version.fingerprint, games=tuple(version.games),
                           language=version.language)


def league_settings(decision_ms: int, bank_ms: int, startup_ms: int,
                    strikes: int, forfeit_policy: str = "") -> LeagueSettings:
    """The clock, strikes and forfeit policy of a new league, zeros (and an empty policy)
    meaning the defaults; its deals in play are written for watchers."""
    try:
        policy = parse_forfeit_policy(forfeit_policy) if forfeit_policy else DEFAULT_POLICY
    except LeagueError as error:
        raise invalid(str(error)) from None
    defaults = TimeControl()
    try:
        control = TimeControl(decision_ms=decision_ms or defaults.decision_ms,
                              bank_ms=bank_ms or defaults.bank_ms,
                              startup_ms=startup_ms or defaults.startup_ms)
    except (TypeError, ValueError) as error:
        raise invalid(f"bad time control: {error}") from None
    return LeagueSettings(control, strikes or DEFAULT_STRIKES, live=True,
                          forfeit_policy=policy)


class LeagueRunner:
    """Creates leagues and runs them in background threads (local workers or Celery)."""

    def __init__(self, store: Store, store_url: str, workers: int = 2,
                 broker: str | None = None) -> None:
        """Keep the store, its URL for the workers, the pool size and the broker (if any)."""
        self.store = store
        self.store_url = store_url
        self.workers = workers
        self.broker = broker
        self._threads: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()

    def create(self, name: str, bots: Sequence[str], games: Sequence[str], deals: int,
               rounds: int, seed: int | None, settings: LeagueSettings,
               owner_id: int | None = None) -> LeagueStatus:
        """Create a league (its entrants resolved on the service) owned by ``owner_id`` and
        return its status; its deals are secret unless a ``seed`` is given."""
        if not bots:
            raise invalid("a league needs bots: name uploaded bots or policies "
                          f"({', '.join(policy_names())})")
        entrants = [entrant_of(self.store, bot) for bot in bots]
        chosen: str | list[str] = list(games) if games else ALL_GAMES
        try:
            league_id = create_league(self.store, name, entrants, chosen, deals or 1,
                                      rounds or 1, seed, settings)
        except LeagueError as error:
            if "already exists" not in str(error):
                raise
            raise LeagueError(f"a league named {name.strip()!r} already exists on this "
                              "service; choose another name (a league on the service is "
                              "never replaced: its results stay)") from None
        if owner_id is not None:
            with self.store.session() as session:
                session.get_one(League, league_id).owner_id = owner_id
                session.commit()
        return self.status(name.strip())

    def status(self, name: str) -> LeagueStatus:
        """The league's status (NOT_FOUND when unknown)."""
        with self.store.session() as session:
            return league_status(session, name)

    def matches(self, name: str) -> tuple[list[Match], dict[int, str]]:
        """The league's matches in schedule order, and its bots' display names."""
        with self.store.session() as session:
            league = find_league(session, name)
            rows = league_matches(session, league.id)
            return rows, league_bots(session, league)

    def running(self, name: str) -> bool:
        """True while this service runs the league."""
        with self._lock:
            thread = self._threads.get(name)
            return thread is not None and thread.is_alive()

    def start(self, name: str) -> bool:
        """Start running the league in the background; False when it already runs."""
        league = self.status(name).name
        with self._lock:
            thread = self._threads.get(league)
            if thread is not None and thread.is_alive():
                return False
            thread = threading.Thread(target=self._run, args=(league,),
                                      name=f"league-{league}", daemon=True)
            self._threads[league] = thread
            thread.start()
            return True

    def wait(self, name: str, timeout_s: float) -> bool:
        """Wait for a league's run to end; True when it did within ``timeout_s``."""
        with self._lock:
            thread = self._threads.get(name)
        if thread is None:
            return True
        thread.join(timeout_s)
        return not thread.is_alive()

    def wait_all(self, timeout_s: float) -> None:
        """Wait (up to ``timeout_s`` in all) for every run to end."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            threads = list(self._threads.values())
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _run(self, name: str) -> None:
        """Run one league to its end, logging (not raising) what goes wrong."""
        try:
            if self.broker is None:
                from arena.league.local import run_league

                run_league(self.store_url, name, workers=self.workers)
            else:
                from arena.league.dispatch import dispatch_league

                dispatch_league(self.store_url, name, self.broker)
        except Exception:
            LOG.exception("running league %s failed", name)
