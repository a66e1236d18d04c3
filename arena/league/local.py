"""Running a league on this machine: a pool of spawned worker processes calling ``run_match``.

The database decides what runs: the pool is offered every match that is not done, in schedule
order, and a worker plays one only after winning its lease, so two runs of one league (or a run
and Celery workers) never play a match twice. Matches leased by someone else are waited for;
a lease that runs out (its worker died) is re-queued by the sweeper, and matches that used up
their attempts are made void.

Each worker keeps its process bots running between matches (``worker_pool``): a match opens
new Play streams on them, and a bot that misbehaved is stopped and started afresh for the next.

Workers ignore SIGINT. Ctrl-C only sets a flag, which the run looks at between its steps (never
inside a database call, which an interrupt would leave mid-statement); the run then stops its
workers with SIGTERM (each stops its bots first), then hands back the leases they held without
counting the attempt: running the league again resumes it, and every match ends up played exactly
once. A run that is killed takes its workers with it (``arena.sandbox.lifeline``: each worker dies
with its parent, and its reaper removes its bots, containers and folders); its leases run out and
the next run takes them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context

from arena.agents.seats import HOST_MATCHES_ENV
from arena.league.interrupt import ctrl_c_noted
from arena.league.run_match import (
    DEFAULT_LEASE_S,
    DONE,
    LOST,
    RETRY,
    SKIPPED,
    VOID,
    run_match,
    worker_pool,
)
from arena.league.status import (
    LeagueStatus,
    find_league,
    league_bots,
    league_status,
    pending_matches,
    standings,
)
from arena.sandbox.lifeline import die_with_parent
from arena.store import (
    DEFAULT_MAX_ATTEMPTS,
    MatchStatus,
    Store,
    expire_owners,
    open_store,
    release_owners,
    void_exhausted,
)
from arena.store.matches import lease_states
from arena.store.models import utc_now
from arena.telemetry.logs import configure_from_env
from arena.telemetry.metrics import count_lease_expiries

INTERRUPTED = "interrupted"
"""A match whose worker was stopped by an interrupt (handed back, to run again)."""

ERROR = "error"
"""A worker failed before it could claim the match."""

MAX_ERRORS = 5
"""Worker errors in a row after which a run gives up."""


class LeagueRunError(RuntimeError):
    """A local run that cannot go on: one line saying why."""


SWEEP_S = 2.0
"""How often the run looks again at matches leased elsewhere and at expired leases."""

STOP_POLL_S = 0.25
"""How long the run waits for a finished match before it looks whether Ctrl-C was pressed."""

LEADERS_EVERY_S = 1.0
"""How often the leaders shown are recomputed at most."""

REPORT_EVERY_S = 0.25
"""How often the progress hook hears of finished matches at most (the end is always told)."""

QUEUED_PER_WORKER = 2
"""Matches handed to the pool per worker: the one it plays and the next, so that a worker
never waits for this process between matches (a match is claimed only when it starts)."""


@dataclass
class RunSummary:
    """What a local run did: matches by outcome in this run, and the league's state after."""

    league: str
    outcomes: dict[str, int] = field(default_factory=dict)
    interrupted: bool = False
    elapsed_s: float = 0.0
    status: LeagueStatus | None = None

    def count(self, outcome: str) -> None:
        """Count one match's outcome."""
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1


ProgressHook = Callable[[LeagueStatus, dict[str, list[tuple[str, float]]], str], None]
"""Called with the league's status, the leaders per game and a note, as matches finish."""


def worker_init(reuse_bots: bool, workers: int = 1) -> None:
    """Set up a pool worker: it dies with the run (``die_with_parent``); Ctrl-C is for the
    parent, which stops workers with SIGTERM; a SIGTERM stops the worker's bots (the match
    runner does it for a match without the pool), then the worker. Its matches know that
    ``workers`` may be played at once on this host (``pin_to_cores``)."""
    os.environ[HOST_MATCHES_ENV] = str(workers)
    configure_from_env()
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if reuse_bots:
        worker_pool().install_sigterm()


def worker_run(match_id: str, store_url: str, owner_prefix: str, lease_s: float,
                max_attempts: int, reuse_bots: bool) -> tuple[str, str]:
    """Run one match in a pool worker (its process bots kept for the next matches when
    ``reuse_bots``); (match id, outcome)."""
    owner = f"{owner_prefix}{os.getpid()}"
    return match_id, run_match(match_id, store_url=store_url, owner=owner, lease_s=lease_s,
                               max_attempts=max_attempts,
                               pool=worker_pool() if reuse_bots else None)


def run_league(store_url: str, name: str, *, workers: int = 2,
               lease_s: float = DEFAULT_LEASE_S, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
               limit: int | None = None, progress: ProgressHook | None = None,
               reuse_bots: bool = True) -> RunSummary:
    """Run a league's matches that are not done in a local pool of ``workers`` processes.

    ``reuse_bots`` keeps each worker's process bots running from one match to the next;
    without it every match starts and stops its own.

    ``limit`` stops after that many matches were handed to workers (a partial run). Ctrl-C
    stops the workers and hands back their leases; the summary says so (``interrupted``).
    A worker that dies (killed, out of memory) breaks the pool, which stops the other workers
    too: the leases they held are made to run out now, the attempts counted (so a match that
    kills its worker stops at the cap), and a new pool goes on.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    started = time.monotonic()
    summary = RunSummary(league=name)
    owner_prefix = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}:"
    with open_store(store_url) as store, ctrl_c_noted() as stop:
        runner = _LocalRun(store, store_url, name, owner_prefix, lease_s, max_attempts,
                           progress, reuse_bots, stop)
        try:
            while True:
                executor = ProcessPoolExecutor(max_workers=workers,
                                               mp_context=get_context("spawn"),
                                               initializer=worker_init,
                                               initargs=(reuse_bots, workers))
                try:
                    runner.run(executor, workers, limit, summary)
                except BrokenProcessPool:
                    runner.stop(executor, note="a worker died: starting a new pool")
                    runner.in_flight.clear()
                    with store.session() as session:
                        expire_owners(session, owner_prefix)
                    continue
                except BaseException:
                    runner.stop(executor)
                    raise
                executor.shutdown(wait=True)
                break
        except KeyboardInterrupt:
            summary.interrupted = True
        finally:
            with store.session() as session:
                released = release_owners(session, owner_prefix)
            for _ in released:
                summary.count(INTERRUPTED)
            with store.session() as session:
                summary.status = league_status(session, name)
            runner.report(summary.status, note="interrupted; run again to resume"
                          if summary.interrupted else "")
    summary.elapsed_s = time.monotonic() - started
    return summary


class _LocalRun:
    """The bookkeeping of one local run: the queue, the matches in flight, the view."""

    def __init__(self, store: Store, store_url: str, name: str, owner_prefix: str,
                 lease_s: float, max_attempts: int, progress: ProgressHook | None,
                 reuse_bots: bool = True, stop: threading.Event | None = None) -> None:
        """Find the league (``LeagueError`` when unknown); ``stop``, once set, ends the run
        with a KeyboardInterrupt at the next safe point."""
        self.store = store
        self.stop_requested = stop or threading.Event()
        self.reuse_bots = reuse_bots
        self.store_url = store_url
        self.owner_prefix = owner_prefix
        self.lease_s = lease_s
        self.max_attempts = max_attempts
        self.progress = progress
        with store.session() as session:
            league = find_league(session, name)
            self.league_id = league.id
            self.name = league.name
            self.games = list(league.games)
            self.names = league_bots(session, league)
        self.in_flight: dict[str, Future[tuple[str, str]]] = {}
        self.queue: deque[str] = deque()
        self.submitted = 0
        self.errors = 0
        self._leaders_at = 0.0
        self._reported_at = 0.0
        self._leaders: dict[str, list[tuple[str, float]]] = {}

    def run(self, executor: ProcessPoolExecutor, workers: int, limit: int | None,
            summary: RunSummary) -> None:
        """Hand matches to the pool until none is left (or ``limit`` were handed out)."""
        self.report(note="")
        last_sweep = 0.0
        while True:
            self._stop_if_asked()
            while (self.queue and len(self.in_flight) < workers * QUEUED_PER_WORKER
                   and (limit is None or self.submitted < limit)):
                match_id = self.queue.popleft()
                if match_id in self.in_flight:
                    continue
                self.in_flight[match_id] = executor.submit(
                    worker_run, match_id, self.store_url, self.owner_prefix, self.lease_s,
                    self.max_attempts, self.reuse_bots)
                self.submitted += 1
            if not self.in_flight:
                if limit is not None and self.submitted >= limit:
                    return
                if time.monotonic() - last_sweep >= SWEEP_S or not last_sweep:
                    last_sweep = time.monotonic()
                    waiting = self.refill()
                    if not self.queue and not waiting:
                        return
                    if self.queue:
                        continue
                self.stop_requested.wait(SWEEP_S / 4)
                continue
            finished, _ = wait(list(self.in_flight.values()), timeout=STOP_POLL_S,
                               return_when=FIRST_COMPLETED)
            self._stop_if_asked()
            for future in finished:
                match_id, outcome = self._outcome(future)
                del self.in_flight[match_id]
                summary.count(outcome)
                if outcome in (RETRY, ERROR):
                    self.queue.append(match_id)
            if finished and time.monotonic() - self._reported_at >= REPORT_EVERY_S:
                self.report()

    def _stop_if_asked(self) -> None:
        """Raise KeyboardInterrupt here, between steps, once Ctrl-C was pressed."""
        if self.stop_requested.is_set():
            raise KeyboardInterrupt

    def refill(self) -> int:
        """Queue the claimable matches (pending, or leased with the lease run out), void the
        ones out of attempts; how many are leased elsewhere and still running."""
        now = utc_now()
        with self.store.session() as session:
            void_exhausted(session, self.max_attempts, now)
            ids = pending_matches(session, self.league_id)
            rows = lease_states(session, ids) if ids else {}
            session.commit()
        waiting = 0
        for match_id in ids:
            row = rows.get(match_id)
            if row is None or match_id in self.in_flight:
                continue
            expires = row.lease_expires
            if row.status == MatchStatus.LEASED and expires is not None and expires >= now:
                waiting += 1
                continue
            if row.status == MatchStatus.LEASED:
                count_lease_expiries(1)
            self.queue.append(match_id)
        if waiting and not self.queue:
            self.report(note=f"waiting for {waiting} matches leased by other workers")
        return waiting

    def _outcome(self, future: Future[tuple[str, str]]) -> tuple[str, str]:
        """The (match id, outcome) of a finished future (a broken pool raises); a worker's
        error before it could claim the match (such as an unreachable database) raises
        ``LeagueRunError`` once ``MAX_ERRORS`` came in a row."""
        try:
            outcome = future.result()
        except BrokenProcessPool:
            raise
        except Exception as error:
            self.errors += 1
            detail = " ".join(str(error).split()) or type(error).__name__
            if self.errors >= MAX_ERRORS:
                raise LeagueRunError(f"workers keep failing: {detail}") from None
            match_id = next(key for key, value in self.in_flight.items() if value is future)
            return match_id, ERROR
        self.errors = 0
        return outcome

    def stop(self, executor: ProcessPoolExecutor,
             note: str = "interrupted: stopping the workers") -> None:
        """Stop every worker now (SIGTERM: each stops its bots first) and wait for them."""
        self.report(note=note)
        processes = list(getattr(executor, "_processes", {}).values())
        for process in processes:
            with contextlib.suppress(ProcessLookupError, OSError):
                os.kill(process.pid, signal.SIGTERM)
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.join()

    def report(self, status: LeagueStatus | None = None, note: str | None = None) -> None:
        """Tell the progress hook where the league stands."""
        self._reported_at = time.monotonic()
        if self.progress is None:
            return
        with self.store.session() as session:
            status = status or league_status(session, self.name)
            if time.monotonic() - self._leaders_at >= LEADERS_EVERY_S or status.finished:
                self._leaders = standings(session, self.league_id, self.names)
                self._leaders_at = time.monotonic()
        self.progress(status, self._leaders, note if note is not None else "")


OUTCOMES = (DONE, SKIPPED, RETRY, VOID, LOST, INTERRUPTED, ERROR)
"""The outcomes a run counts."""
