"""Running one scheduled match under its lease: the unit of work of every executor.

``run_match(match_id, store_url=...)`` claims the match's lease (another worker holding it, or
the match being finished, makes it return ``"skipped"``), rebuilds the seats from the bot
versions in the match row, plays the duplicate set with the match's seed and rotations while a
thread renews the lease, and completes the match with one result row per seat and one record
per deal. A failed attempt (a void deal, a bot folder gone, any error) is handed back with
``fail_match``; at the attempt cap the match is void. An interrupt (``KeyboardInterrupt``)
hands the lease back without using up the attempt and is raised again.

The arguments are ids and strings only, so the function can be a Celery task's body or run in
a spawned process; stores are opened once per process and kept. An executor passes its
process's ``worker_pool()`` as ``pool``: the process bots of the match then come from the pool
(an instance per seat and rotation, none of which has seen the match's deal) and stay running
for the worker's next matches (``arena.agents.pool``); without a pool every match starts and
stops its own bots.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import multiprocessing.util
import os
import socket
import threading
import time
import uuid
from collections.abc import Sequence

from sqlalchemy.orm import Session

from arena.agents import BotSeat, PolicySeat, SeatSpec
from arena.agents.heap import settle_heap
from arena.agents.pool import AgentPool
from arena.agents.seats import pin_to_cores
from arena.games import load_game
from arena.league.create import POLICY_PREFIX, LeagueSettings
from arena.league.live import live_feed
from arena.league.observe import match_ended, match_failed
from arena.match import DuplicateResult, run_duplicate
from arena.match.results import clean_instances
from arena.match.runner import run_duplicate_async
from arena.store import (
    DEFAULT_MAX_ATTEMPTS,
    BotKind,
    BotVersion,
    League,
    Match,
    MatchStatus,
    Store,
    claim_match,
    complete_match,
    fail_match,
    open_store,
    release_match,
    renew_lease,
)
from arena.store.bots import versions_by_id
from arena.store.outcomes import deal_records, seat_outcomes

DEFAULT_LEASE_S = 120.0
"""How long a lease lasts before it is renewed; a dead worker's match waits this long."""

RENEWALS_PER_LEASE = 4
"""How many times per lease period the running worker pushes its expiry."""

SKIPPED, DONE, RETRY, VOID, LOST = "skipped", "done", "pending", "void", "lost"
"""What ``run_match`` returns: not claimed, finished, handed back for another attempt, given
up at the attempt cap, or played but refused at completion (the lease was lost)."""

VOID_INFRA = "VOID_INFRA"
"""The prefix of the error noted for a match whose attempt failed in the arena."""

_STORES: dict[str, Store] = {}
_STORES_LOCK = threading.Lock()
_POOLS: dict[int, AgentPool] = {}


def process_store(store_url: str) -> Store:
    """The store for a URL, opened once per process (and per fork) and kept."""
    key = f"{os.getpid()}:{store_url}"
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            store = open_store(store_url)
            _STORES[key] = store
        return store


def worker_pool() -> AgentPool:
    """This process's pool of kept bots: made on first use, every bot stopped at exit (also
    in a pool worker process, which ends without running ``atexit``: multiprocessing's
    finalizers run there)."""
    pool = _POOLS.get(os.getpid())
    if pool is None:
        settle_heap()  # a worker plays match after match from here on
        pool = _POOLS[os.getpid()] = AgentPool()
        atexit.register(pool.close)
        multiprocessing.util.Finalize(pool, pool.close, exitpriority=10)
    return pool


def default_owner() -> str:
    """A lease owner name unique to this call: host, process id and a random token."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def seat_for(version: BotVersion) -> SeatSpec:
    """The seat spec that plays a bot version: a policy, a bot folder, or a Docker image."""
    name = version.bot.name
    if version.kind is BotKind.DOCKER:
        from arena.agents.seats import DockerSeat
        from arena.agents.sources import stored_image

        return DockerSeat(stored_image(version.image_ref or "", version.image_id or "", name,
                                       version.version, version.games, version.language))
    if version.path is None:
        if not name.startswith(POLICY_PREFIX):
            raise ValueError(f"bot version {version.id} ({name}) has neither a path nor an image")
        return PolicySeat(name[len(POLICY_PREFIX):])
    return BotSeat.from_path(version.path)


def match_seats(session: Session, entrants: Sequence[int]) -> list[SeatSpec]:
    """The seat specs of a match's entrants, in seat order (a bot in several seats: one spec
    each, as every seat gets its own agent)."""
    versions = versions_by_id(session, entrants)
    specs: dict[int, SeatSpec] = {}
    for version_id in entrants:
        if version_id not in specs:
            specs[version_id] = seat_for(versions[version_id])
    return pin_to_cores([specs[version_id] for version_id in entrants])


class LeaseKeeper:
    """A thread that renews a lease until stopped; ``lost`` once a renewal is refused."""

    def __init__(self, store: Store, match_id: str, owner: str, lease_s: float) -> None:
        """Start renewing every ``lease_s / RENEWALS_PER_LEASE`` seconds."""
        self.lost = False
        self._stop = threading.Event()
        self._args = (store, match_id, owner, lease_s)
        self._thread = threading.Thread(target=self._run, name=f"lease {match_id}",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        """Renew until stopped or refused (a failed renewal is retried at the next tick)."""
        store, match_id, owner, lease_s = self._args
        while not self._stop.wait(lease_s / RENEWALS_PER_LEASE):
            try:
                with store.session() as session:
                    if not renew_lease(session, match_id, owner, lease_s):
                        self.lost = True
                        return
            except Exception:
                continue

    def stop(self) -> None:
        """Stop renewing and wait for the thread."""
        self._stop.set()
        self._thread.join()


def run_match(match_id: str, *, store_url: str, owner: str | None = None,
              lease_s: float = DEFAULT_LEASE_S, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
              pool: AgentPool | None = None) -> str:
    """Run one match under its lease; ``done``, ``skipped``, ``pending``, ``void`` or ``lost``.

    With a ``pool``, the match's process bots come from it and the clean ones stay running.
    """
    store = process_store(store_url)
    owner = owner or default_owner()
    with store.session() as session:
        if not claim_match(session, match_id, owner, lease_s, max_attempts=max_attempts):
            return SKIPPED
    started = time.monotonic()
    try:
        with store.session() as session:
            keeper = LeaseKeeper(store, match_id, owner, lease_s)
            try:
                match, result = _play(session, match_id, pool)
                outcomes = seat_outcomes(result, match.entrants)
                records = deal_records(result)
            finally:
                keeper.stop()
            done = complete_match(session, match_id, owner, outcomes, records)
            _tell_ended(session, match, result, DONE if done else LOST, started)
            return DONE if done else LOST
    except KeyboardInterrupt:
        with store.session() as session:
            release_match(session, match_id, owner)
        raise
    except Exception as error:
        detail = " ".join(str(error).split()) or type(error).__name__
        with store.session() as session:
            status = fail_match(session, match_id, owner,
                                f"{VOID_INFRA}: {type(error).__name__}: {detail}",
                                max_attempts=max_attempts)
        outcome = LOST if status is None else VOID if status is MatchStatus.VOID else RETRY
        with contextlib.suppress(Exception), store.session() as session:
            match = session.get_one(Match, match_id)
            match_failed(match_id, _names(session, match)[0], match.game_id, outcome, error)
        return outcome


def _tell_ended(session: Session, match: Match, result: DuplicateResult, outcome: str,
                started: float) -> None:
    """Count and log a played match; a failure to do so is logged, never the match's."""
    try:
        league, bots = _names(session, match)
        match_ended(match.id, league, result, bots, outcome, time.monotonic() - started)
    except Exception:
        logging.getLogger(__name__).exception("could not count match %s", match.id)


def _names(session: Session, match: Match) -> tuple[str, list[str]]:
    """The league's name and the entrants' bot names of a match (for its metrics and logs)."""
    versions = versions_by_id(session, match.entrants)
    league = session.get_one(League, match.league_id)
    return league.name, [versions[version_id].bot.name for version_id in match.entrants]


def _play(session: Session, match_id: str,
          pool: AgentPool | None) -> tuple[Match, DuplicateResult]:
    """Play a claimed match's duplicate set (its process bots from ``pool``, if any); the
    match row and the ``DuplicateResult``."""
    match = session.get_one(Match, match_id)
    league = session.get_one(League, match.league_id)
    settings = LeagueSettings.from_dict(league.settings)
    game = load_game(match.game_id, match.seats, match.params)
    seats = match_seats(session, match.entrants)
    session.commit()
    with live_feed(session, match.id, settings.live) as on_action:
        if pool is None:
            return match, run_duplicate(game, match.seed, seats, settings.time_control,
                                        strikes=settings.strikes,
                                        rotations=len(match.rotations), match_id=match.id,
                                        on_action=on_action)
        loan = pool.lend(seats, match.seed)
        try:
            result = pool.run(run_duplicate_async(
                game, match.seed, loan.seats, settings.time_control, strikes=settings.strikes,
                rotations=len(match.rotations), match_id=match.id, on_action=on_action))
        except BaseException:
            pool.give_back(loan, None)
            raise
        pool.give_back(loan, clean_instances(result))
        return match, result


