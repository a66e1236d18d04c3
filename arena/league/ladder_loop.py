"""The ladder's loop: keep a bounded number of sets in flight, top up as they finish.

Every ``POLL_S`` the loop enters newly uploaded bots (``join_uploads``), makes void the sets
that used up their attempts, appends sets until ``in_flight`` are pending or running
(``top_up``), and hands the claimable ones to its executor: the local pool's worker processes
(``run_match`` under a lease, as ``arena league run`` does) or Celery workers (the league
dispatcher's ``step``). The database is the record of truth: a loop that is stopped or killed
and started again finds the sets it had appended still pending; the leases of a killed run on
this host are made to run out at once (its processes are gone), so those sets are played again
from the start, and a set is only ever written once (``complete_match``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Protocol

from arena.league.boards import leaderboards
from arena.league.ladder import join_uploads, open_ladder, top_up, version_names
from arena.league.ladder_schedule import Skill
from arena.league.local import QUEUED_PER_WORKER, worker_init, worker_run
from arena.store import (
    DEFAULT_MAX_ATTEMPTS,
    MatchStatus,
    Store,
    expire_owners,
    open_store,
    release_owners,
    void_exhausted,
)
from arena.store.ladder import lease_owners
from arena.store.matches import lease_states, unfinished_ids
from arena.store.models import utc_now

log = logging.getLogger(__name__)

POLL_S = 0.5
"""How often the loop looks at the database."""

RATINGS_EVERY_S = 5.0
"""How often the ratings the scheduler reads are recomputed at most."""

ERROR_PAUSE_S = 5.0
"""How long the loop waits after the database or the broker failed a round."""

LADDER_LEASE_S = 60.0
"""The lease of a ladder set on the local pool."""


@dataclass(frozen=True)
class LadderOptions:
    """How a ladder runs: its name and games, its workers or broker, sets in flight."""

    name: str = "ladder"
    games: tuple[str, ...] | None = None
    workers: int = 2
    broker: str | None = None
    in_flight: int = 0
    """Sets kept pending or running (0: twice the workers, at least 2)."""
    lease_s: float = LADDER_LEASE_S
    placement: int | None = None
    join_uploads: bool = True

    @property
    def target(self) -> int:
        """The sets to keep in flight."""
        return self.in_flight or max(2, 2 * self.workers)


class Executor(Protocol):
    """Where the ladder's sets are played."""

    def step(self) -> None:
        """Hand out what is claimable, and take in what finished."""

    def close(self) -> None:
        """Stop playing; hand back what this run holds."""


def run_ladder(store_url: str, options: LadderOptions, stop: threading.Event) -> None:
    """Run the ladder until ``stop`` is set (``LeagueError`` for a bad ladder)."""
    with open_store(store_url) as store:
        league_id = open_ladder(store, options.name, options.games)
        executor = make_executor(store, store_url, league_id, options, stop)
        if executor is None:
            return
        ratings = LadderRatings(store, options.name, league_id)
        try:
            while not stop.is_set():
                try:
                    step(store, league_id, options, ratings, executor)
                except Exception as error:  # a round the database or broker failed
                    log.warning("ladder: %s; trying again", " ".join(str(error).split()))
                    stop.wait(ERROR_PAUSE_S)
                stop.wait(POLL_S)
        finally:
            executor.close()


def step(store: Store, league_id: int, options: LadderOptions, ratings: LadderRatings,
         executor: Executor) -> None:
    """One round: enter new uploads, free the leases of dead runs, top up, play."""
    if options.join_uploads:
        for name in join_uploads(store, league_id):
            log.info("ladder: %s joined", name)
    expire_dead_owners(store, league_id)
    top_up(store, league_id, options.target, ratings.current(), options.placement)
    executor.step()


def make_executor(store: Store, store_url: str, league_id: int, options: LadderOptions,
                  stop: threading.Event) -> Executor | None:
    """The local pool, or Celery with a broker, tried every ``ERROR_PAUSE_S`` until it can
    be used (a line logged when the problem first shows or changes); None once ``stop`` is
    set first."""
    if not options.broker:
        return PoolExecutor(store, store_url, league_id, options)
    from arena.league.celery_app import DistributionError

    logged = ""
    while not stop.is_set():
        try:
            executor = CeleryExecutor(store, store_url, league_id, options.broker)
        except DistributionError as error:
            problem = " ".join(str(error).split())
            if problem != logged:
                log.warning("ladder waiting for its broker: %s; trying again every %g s",
                            problem, ERROR_PAUSE_S)
                logged = problem
            stop.wait(ERROR_PAUSE_S)
            continue
        if logged:
            log.info("ladder: the broker answers; the ladder runs")
        return executor
    return None


class LadderRatings:
    """The ladder's overall OpenSkill ratings by bot version, recomputed now and then."""

    def __init__(self, store: Store, name: str, league_id: int) -> None:
        """None computed yet."""
        self.store = store
        self.name = name
        self.league_id = league_id
        self.at = 0.0
        self.ratings: dict[int, Skill] = {}

    def current(self) -> dict[int, Skill]:
        """The ratings, at most ``RATINGS_EVERY_S`` old (empty before any set is done)."""
        if time.monotonic() - self.at < RATINGS_EVERY_S:
            return self.ratings
        self.at = time.monotonic()
        names = version_names(self.store, self.league_id)
        try:
            boards = leaderboards(self.store, self.name, None)
        except ValueError:
            return self.ratings
        by_name = {rating.bot: rating for rating in boards.overall}
        self.ratings = {version: Skill(by_name[name].mu, by_name[name].sigma)
                        for version, name in names.items() if name in by_name}
        return self.ratings


def expire_dead_owners(store: Store, league_id: int) -> list[str]:
    """Make the leases of this host's runs that are gone run out now; the owners expired."""
    host = socket.gethostname()
    with store.session() as session:
        owners = lease_owners(session, league_id)
    dead = []
    for owner in owners:
        parts = owner.split(":")
        if parts[0] != host or len(parts) < 2:
            continue
        pids = [int(part) for part in parts[1:] if part.isdigit()]
        if pids and not any(_alive(pid) for pid in pids):
            with store.session() as session:
                expire_owners(session, owner)
            dead.append(owner)
    return dead


def _alive(pid: int) -> bool:
    """True when a process of that id runs on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class PoolExecutor:
    """The ladder's sets played by a local pool of worker processes, as ``league run`` does."""

    def __init__(self, store: Store, store_url: str, league_id: int,
                 options: LadderOptions) -> None:
        """A pool of ``options.workers`` spawned processes."""
        self.store = store
        self.store_url = store_url
        self.league_id = league_id
        self.options = options
        self.owner_prefix = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}:"
        self.in_flight: dict[str, Future[tuple[str, str]]] = {}
        self.pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        """A fresh pool of spawned workers that die with this process."""
        return ProcessPoolExecutor(max_workers=self.options.workers,
                                   mp_context=get_context("spawn"), initializer=worker_init,
                                   initargs=(True, self.options.workers))

    def step(self) -> None:
        """Take in finished sets, then hand the claimable ones to the workers."""
        done = [match_id for match_id, future in self.in_flight.items() if future.done()]
        for match_id in done:
            future = self.in_flight.pop(match_id)
            try:
                future.result()
            except BrokenProcessPool:
                self._restart()
                return
            except Exception as error:  # a worker failed before its claim: the set runs again
                log.warning("ladder set %s: %s", match_id, error)
        room = self.options.workers * QUEUED_PER_WORKER - len(self.in_flight)
        for match_id in self._claimable()[:max(room, 0)]:
            try:
                self.in_flight[match_id] = self.pool.submit(
                    worker_run, match_id, self.store_url, self.owner_prefix,
                    self.options.lease_s, DEFAULT_MAX_ATTEMPTS, True)
            except BrokenProcessPool:
                self._restart()
                return
        if self.in_flight:
            wait(list(self.in_flight.values()), timeout=0.05, return_when=FIRST_COMPLETED)

    def _claimable(self) -> list[str]:
        """Pending sets and sets whose lease ran out, in schedule order, not in hand."""
        now = utc_now()
        with self.store.session() as session:
            void_exhausted(session, DEFAULT_MAX_ATTEMPTS, now)
            ids = unfinished_ids(session, self.league_id)
            rows = lease_states(session, ids) if ids else {}
            session.commit()
        found = []
        for match_id in ids:
            row = rows.get(match_id)
            if row is None or match_id in self.in_flight:
                continue
            expired = row.lease_expires is not None and row.lease_expires < now
            if row.status == MatchStatus.PENDING or expired:
                found.append(match_id)
        return found

    def _restart(self) -> None:
        """A worker died: stop the pool, let its leases run out, start a new one."""
        self._stop_pool()
        with self.store.session() as session:
            expire_owners(session, self.owner_prefix)
        self.pool = self._new_pool()

    def _stop_pool(self) -> None:
        """Stop every worker now (SIGTERM: each stops its bots first) and wait for them."""
        processes = list(getattr(self.pool, "_processes", {}).values())
        for process in processes:
            with contextlib.suppress(ProcessLookupError, OSError):
                os.kill(process.pid, signal.SIGTERM)
        self.pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.join()
        self.in_flight.clear()

    def close(self) -> None:
        """Stop the workers and hand back their leases, the attempts not counted."""
        self._stop_pool()
        with self.store.session() as session:
            release_owners(session, self.owner_prefix)


class CeleryExecutor:
    """The ladder's sets sent through Celery to ``arena worker`` processes."""

    def __init__(self, store: Store, store_url: str, league_id: int, broker: str) -> None:
        """A dispatcher for the ladder's league (``BrokerUnreachable`` when it cannot be)."""
        from arena.league.celery_app import CelerySettings, check_broker, make_celery_app
        from arena.league.dispatch import RESEND_AFTER_S, Dispatcher
        from arena.store import database_url

        app = make_celery_app(CelerySettings(broker))
        check_broker(app)
        url = database_url(store_url).render_as_string(hide_password=False)
        self.dispatcher = Dispatcher(app, store, league_id, url, DEFAULT_MAX_ATTEMPTS,
                                     RESEND_AFTER_S)

    def step(self) -> None:
        """Void the exhausted, sweep expired leases, send what waits."""
        self.dispatcher.step()

    def close(self) -> None:
        """Nothing to hand back: the workers keep playing what was sent."""


class LadderThread:
    """The ladder's loop in a thread of its own (which outlives its pool), until stopped."""

    def __init__(self, store_url: str, options: LadderOptions) -> None:
        """Start the loop."""
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=run_ladder,
                                       args=(store_url, options, self.stopping),
                                       name="ladder", daemon=True)
        self.thread.start()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop the loop: its workers stop and hand back the sets they held."""
        self.stopping.set()
        self.thread.join(timeout=timeout_s)
