"""``arena bench league``: a league of process bots against the concurrent gRPC ceiling, and the
cost of Celery dispatch against the local pool.

Three measurements in one run, in a temporary SQLite database:

- ceiling: the random and heuristic sample bots (real processes, started beforehand) play
  duplicate sets of 2-seat briscola, one set at a time in each of ``workers`` lanes, all lanes
  at once in one event loop (the machinery of ``arena bench protocol``): decisions per second;
- local: a league of the same two bots (``--matches`` duplicate sets) run by the local pool of
  ``workers`` processes: wall time, matches per hour, and decisions per second counted from the
  stored records; each worker starts its bots for its first match and keeps them running for
  the next ones, as a league does (the wall time holds the start of the workers and bots);
- Celery: the same league again through a private redis-server (or ``--broker``) and one worker
  process per pool worker, started and ready before the clock starts.

The machines are shared and noisy, so the three are repeated ``--rounds`` times in turn (the
Celery workers and the broker stay up across rounds), each round with leagues of its own. The
report gives the round with the median ratio (its ceiling, local and Celery figures) and the
median of the rounds' Celery overheads; every round's ratio and overhead are listed too.

A run's time per match is read from the stored timestamps: for each worker (the lease owner),
the span from the end of its first match to the end of its last, summed over the workers and
divided by the matches in those spans. It holds the matches and the gaps between them (for
Celery: the acknowledgement and the next delivery), not the start of the pool nor a worker's
first match, which pays its imports in both runs. With one match per worker, the whole spans
are used.

The Celery overhead is the cost of dispatch: a worker's gap between completing a match and
claiming its next one (for Celery the acknowledgement, the next delivery and the task's start;
for the pool the hand-over of the next call), median over the run, Celery's minus the pool's,
as a share of the pool's median match (claim to completion). Both run the same match code, and
on a shared machine a match's own time swings by a third between two runs of the same league,
which would swamp a dispatch cost of a few milliseconds; the whole time per match of the two
runs is compared as well (``celery_time_per_match_fraction``), for information. The same spans give
the league's rates, ``decisions_per_s`` and ``matches_per_hour``: what a league runs at once
its workers and bots are up (the decisions per match times the workers, divided by the time per
match), and so ``ratio``, against the ceiling. The start of the pool, its imports and the first
start of each bot are a one-off cost of a run, reported on their own (``startup_s``, and the
rates over the whole wall time, ``wall_decisions_per_s`` and ``wall_ratio``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from arena.bench.errors import BenchError
from arena.bench.launched import launched_bots
from arena.bench.overhead import check_clean
from arena.bench.protocol import (
    ROOT,
    SAMPLE_RANDOM,
    STARTUP_S,
    Progress,
    load_bot,
    measure_throughput,
    temp_root,
)
from arena.bots import BotManifest
from arena.games import Game, load_game
from arena.league.redis_local import RedisServer, RedisUnavailable, redis_binary
from arena.match.runner import run_duplicate_async
from arena.sandbox.lifeline import pdeathsig_preexec

GOAL_RATIO = 0.7
"""The league's decisions per second should be at least this share of the ceiling's."""

GOAL_CELERY_OVERHEAD = 0.05
"""Celery dispatch should add less than this share to the time per match."""

GAME = "briscola"
PLAYERS = 2
DEFAULT_MATCHES = 20
DEFAULT_WORKERS = 2
DEFAULT_CEILING_S = 3.0
"""Seconds the ceiling measurement keeps starting new duplicate sets."""
DEFAULT_ROUNDS = 3
"""Rounds of (ceiling, local league, Celery league); the report gives medians."""

SAMPLE_HEURISTIC = ROOT / "sample_bots" / "python" / "heuristic"
"""The heuristic sample bot of a source checkout."""

WORKER_READY_S = 120.0
"""How long a Celery worker may take to start consuming (the machine may be busy)."""

LEAGUE_TIMEOUT_S = 1800.0
"""The longest the Celery league may take before the benchmark gives up."""



@dataclass(frozen=True)
class RunFigures:
    """What one run of the league did, read from the store."""

    matches: int
    wall_s: float
    decisions: int
    match_s: float
    """Time per match in the steady state, from the workers' spans (``time_per_match``)."""
    play_s: float
    """The mean time from claiming a match to completing it."""
    decision_share: float
    """The share of the play time spent waiting for the bots' decisions."""
    lanes: int = 1
    """The workers that played the matches (lease owners)."""
    dispatch_s: float = 0.0
    """The median gap between a worker's completing a match and claiming its next one."""
    duration_s: float = 0.0
    """The median time from claiming a match to completing it."""

    @property
    def steady_decisions_per_s(self) -> float:
        """Decisions per second once every worker has played its first match."""
        return self.decisions / self.matches * self.lanes / self.match_s if self.match_s else 0.0

    @property
    def steady_matches_per_hour(self) -> float:
        """Matches per hour once every worker has played its first match."""
        return self.lanes / self.match_s * 3600 if self.match_s else 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form with the rates: steady ones, and over the whole wall time."""
        return {"matches": self.matches, "lanes": self.lanes, "wall_s": round(self.wall_s, 3),
                "matches_per_hour": round(self.steady_matches_per_hour, 1),
                "wall_matches_per_hour": round(self.matches / self.wall_s * 3600, 1),
                "decisions": self.decisions,
                "decisions_per_s": round(self.steady_decisions_per_s, 1),
                "wall_decisions_per_s": round(self.decisions / self.wall_s, 1),
                "match_s": round(self.match_s, 4), "play_s": round(self.play_s, 4),
                "dispatch_s": round(self.dispatch_s, 5), "duration_s": round(self.duration_s, 4),
                "decision_share": round(self.decision_share, 4)}


def run_figures(store_url: str, league: str, wall_s: float) -> RunFigures:
    """The figures of a finished league from its stored matches and records."""
    from arena.league.status import find_league
    from arena.store import Match, MatchRecordRow, MatchStatus, open_store

    with open_store(store_url) as store, store.session() as session:
        league_id = find_league(session, league).id
        rows = session.execute(select(
            Match.id, Match.status, Match.lease_owner, Match.started_at, Match.finished_at,
        ).where(Match.league_id == league_id)).all()
        records = session.scalars(select(MatchRecordRow.record).join(Match).where(
            Match.league_id == league_id)).all()
        session.commit()
    undone = [row.id for row in rows if row.status != MatchStatus.DONE]
    if undone or not rows:
        raise BenchError(f"league {league}: {len(undone)} of {len(rows)} matches not played "
                         f"({', '.join(undone[:3])})")
    spans: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for row in rows:
        spans[row.lease_owner or row.id].append(
            (row.started_at.timestamp(), row.finished_at.timestamp()))
    play = sum(end - start for held in spans.values() for start, end in held)
    decided_us = sum(us or 0 for record in records for us in record.get("decision_us") or [])
    return RunFigures(matches=len(rows), wall_s=wall_s,
                      decisions=sum(len(record["actions"]) for record in records),
                      match_s=time_per_match(list(spans.values())), play_s=play / len(rows),
                      decision_share=decided_us / 1e6 / play if play > 0 else 0.0,
                      lanes=len(spans), dispatch_s=dispatch_gap(list(spans.values())),
                      duration_s=statistics.median(
                          end - start for held in spans.values() for start, end in held))


def time_per_match(workers: list[list[tuple[float, float]]]) -> float:
    """Seconds per match from each worker's (start, end) times: the span from the end of its
    first match to the end of its last, per match after the first (the first pays the
    worker's imports); the whole spans, per match, when no worker played two."""
    warm = [sorted(held, key=lambda times: times[1]) for held in workers if len(held) > 1]
    if warm:
        return (sum(held[-1][1] - held[0][1] for held in warm)
                / sum(len(held) - 1 for held in warm))
    return sum(end - start for held in workers for start, end in held) / len(workers)


def dispatch_gap(workers: list[list[tuple[float, float]]]) -> float:
    """The median time from a worker's completing a match to its claiming the next, from each
    worker's (start, end) times; 0 when no worker played two."""
    gaps = [later[0] - earlier[1] for held in workers
            for earlier, later in itertools.pairwise(sorted(held))]
    return statistics.median(gaps) if gaps else 0.0


async def _ceiling(game: Game, bots: list[BotManifest], lanes: int, seconds: float,
                   root: Path) -> dict[str, Any]:
    """Decisions per second with ``lanes`` duplicate sets of the bots at once (after one
    unmeasured set per lane)."""
    seeds = itertools.count(1)
    async with contextlib.AsyncExitStack() as stack:
        launched = [await stack.enter_async_context(
            launched_bots(bot, root, lanes, STARTUP_S, rotations=game.num_players))
            for bot in bots]
        seats = [[copies[lane] for copies in launched] for lane in range(lanes)]
        warm = await asyncio.gather(*(run_duplicate_async(game, next(seeds), lane)
                                      for lane in seats))
        for result in warm:
            check_clean(result, "a duplicate set of the sample bots")
        return await measure_throughput(game, seats, seconds, seeds)


def measure_ceiling(game: Game, bots: list[BotManifest], lanes: int, seconds: float,
                    root: Path) -> dict[str, Any]:
    """The concurrent gRPC ceiling: decisions per second with ``lanes`` matches at once."""
    return asyncio.run(_ceiling(game, bots, lanes, seconds, root))


def measure_local(store_url: str, league: str, workers: int,
                  progress: Progress) -> RunFigures:
    """Run the league in the local pool; its figures."""
    from arena.league.local import run_league

    def hook(state: Any, leaders: Any, note: str) -> None:
        """Show the matches done."""
        progress(f"local pool: {state.done} of {state.total} matches")

    started = time.perf_counter()
    summary = run_league(store_url, league, workers=workers, progress=hook)
    wall = time.perf_counter() - started
    if summary.interrupted:
        raise KeyboardInterrupt
    return run_figures(store_url, league, wall)


class CeleryWorkers:
    """``arena worker`` processes (one match at a time each), each in its own process group so
    that any bot it leaves behind goes with it (a group, not a session: a new session would put
    the worker in a scheduling group of its own, which the local pool's workers are not)."""

    def __init__(self, folder: Path, broker_url: str, store_url: str) -> None:
        """No worker yet."""
        self.folder = folder
        self.broker_url = broker_url
        self.store_url = store_url
        self.started: list[tuple[subprocess.Popen[bytes], Path]] = []

    def start(self, count: int) -> None:
        """Start ``count`` workers and wait until each consumes from the broker."""
        for index in range(count):
            log = self.folder / f"worker-{index}.log"
            command = [sys.executable, "-m", "arena.cli.worker", "--broker",
                       self.broker_url, "--db", self.store_url, "--loglevel", "INFO"]
            with log.open("wb") as out:
                self.started.append((subprocess.Popen(
                    command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    process_group=0, preexec_fn=pdeathsig_preexec()), log))
        deadline = time.monotonic() + WORKER_READY_S
        for process, log in self.started:
            while " ready." not in log.read_text(errors="replace"):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise BenchError(f"a Celery worker did not start: {self.tail(log)}")
                time.sleep(0.05)

    def check_alive(self) -> None:
        """Raise ``BenchError`` when a worker has exited."""
        for process, log in self.started:
            if process.poll() is not None:
                raise BenchError(f"a Celery worker exited: {self.tail(log)}")

    @staticmethod
    def tail(log: Path) -> str:
        """The last lines of a worker's log, on one line."""
        lines = log.read_text(errors="replace").strip().splitlines()[-3:]
        return " | ".join(lines) or "no output"

    def stop(self) -> None:
        """Stop every worker (SIGTERM to its session, SIGKILL if it lingers)."""
        for process, _ in self.started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process, _ in self.started:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)


class CeleryLeagues:
    """A private redis-server (or a given broker) and Celery workers that play leagues."""

    def __init__(self, store_url: str, workers: int, broker: str | None, root: Path,
                 progress: Progress) -> None:
        """Nothing started yet."""
        self.store_url = store_url
        self.workers = workers
        self.broker = broker
        self.root = root
        self.progress = progress
        self.redis: RedisServer | None = None
        self.pool: CeleryWorkers | None = None
        self.broker_url = ""

    def start(self) -> str | None:
        """Start the broker and the workers; None, or the one-line reason they cannot run."""
        try:
            from arena.league.celery_app import CelerySettings, DistributionError, check_broker
            from arena.league.celery_app import make_celery_app as celery_app
        except ModuleNotFoundError as error:
            return (f"Celery is not installed (no module {error.name}): "
                    "pip install 'card-arena[celery]'")
        try:
            self.redis = RedisServer(redis_binary(), self.root) if self.broker is None else None
        except RedisUnavailable as error:
            return f"{error}, and no --broker was given"
        self.broker_url = self.redis.url if self.redis is not None else str(self.broker)
        self.pool = CeleryWorkers(self.root, self.broker_url, self.store_url)
        try:
            if self.redis is not None:
                self.progress("starting redis-server")
                self.redis.start()
            check_broker(celery_app(CelerySettings(self.broker_url)))
            self.progress(f"starting {self.workers} Celery workers")
            self.pool.start(self.workers)
        except (BenchError, DistributionError, RedisUnavailable) as error:
            self.stop()
            return " ".join(str(error).split())
        return None

    def run(self, league: str) -> tuple[RunFigures | None, str | None]:
        """Play a league through the workers; its figures, or None and the reason why not."""
        from arena.league.celery_app import DistributionError
        from arena.league.dispatch import LeagueCounts, dispatch_league

        pool = self.pool
        assert pool is not None, "start() first"
        deadline = time.monotonic() + LEAGUE_TIMEOUT_S

        def watch(counts: LeagueCounts) -> None:
            """Show the matches done; stop if a worker died or the league takes too long."""
            self.progress(f"Celery: {counts.finished} of {counts.total} matches")
            pool.check_alive()
            if time.monotonic() > deadline:
                raise BenchError(f"the Celery league took over {LEAGUE_TIMEOUT_S:g} s")

        try:
            started = time.perf_counter()
            dispatch_league(self.store_url, league, self.broker_url, watch)
            wall = time.perf_counter() - started
        except (BenchError, DistributionError, RedisUnavailable) as error:
            return None, " ".join(str(error).split())
        return run_figures(self.store_url, league, wall), None

    def stop(self) -> None:
        """Stop the workers and the private broker."""
        if self.pool is not None:
            self.pool.stop()
            self.pool = None
        if self.redis is not None:
            self.redis.kill()
            self.redis = None


def measure_celery(store_url: str, league: str, workers: int, broker: str | None, root: Path,
                   progress: Progress) -> tuple[RunFigures | None, str | None]:
    """Run one league through Celery; its figures, or None and the one-line reason why not."""
    leagues = CeleryLeagues(store_url, workers, broker, root, progress)
    note = leagues.start()
    if note is not None:
        return None, note
    try:
        return leagues.run(league)
    finally:
        leagues.stop()


@dataclass(frozen=True)
class Round:
    """One round of the benchmark: the ceiling, the local league and the Celery league."""

    ceiling: dict[str, Any]
    local: RunFigures
    celery: RunFigures | None

    @property
    def ratio(self) -> float:
        """The local league's steady decisions per second over the ceiling's."""
        return _ratio(self.local.steady_decisions_per_s, self.ceiling["decisions_per_s"])

    @property
    def overhead(self) -> float | None:
        """Celery's dispatch cost over the local pool's, as a share of the pool's median match."""
        if self.celery is None:
            return None
        return _ratio(self.celery.dispatch_s - self.local.dispatch_s, self.local.duration_s)

    @property
    def time_overhead(self) -> float | None:
        """Celery's whole time per match over the local pool's, as a fraction."""
        if self.celery is None:
            return None
        return _ratio(self.celery.match_s - self.local.match_s, self.local.match_s)


def _ratio(value: float, baseline: float) -> float:
    """``value / baseline``, rounded."""
    return round(value / baseline, 4)


def run_league_bench(matches: int = DEFAULT_MATCHES, workers: int = DEFAULT_WORKERS,
                     broker: str | None = None, ceiling_s: float = DEFAULT_CEILING_S,
                     progress: Progress | None = None,
                     bots: tuple[Path, Path] = (SAMPLE_RANDOM, SAMPLE_HEURISTIC),
                     rounds: int = DEFAULT_ROUNDS) -> dict[str, Any]:
    """Measure the ceiling, the local league and the Celery league, in rounds; the report."""
    check_options(matches, workers, ceiling_s, rounds)
    from arena.league.create import create_league
    from arena.store import open_store

    say = progress or (lambda text: None)
    game = load_game(GAME, PLAYERS)
    manifests = [load_bot(bot, game, sample) for bot, sample in
                 zip(bots, (SAMPLE_RANDOM, SAMPLE_HEURISTIC), strict=True)]
    played: list[Round] = []
    with temp_root() as root:
        store_url = f"sqlite:///{root / 'bench.db'}"
        with open_store(store_url) as store:
            for number in range(rounds):
                for name in ("local", "celery"):
                    create_league(store, f"{name}-{number}", [str(bot.folder) for bot in manifests],
                                  [GAME], deals=matches)
        celery = CeleryLeagues(store_url, workers, broker, root, say)
        note = celery.start()
        try:
            for number in range(rounds):
                say(f"round {number + 1} of {rounds}: the ceiling, {workers} matches at once")
                ceiling = measure_ceiling(game, manifests, workers, ceiling_s, root)
                local = measure_local(store_url, f"local-{number}", workers, say)
                figures = None
                if note is None:
                    figures, note = celery.run(f"celery-{number}")
                played.append(Round(ceiling, local, figures))
        finally:
            celery.stop()
    return league_report(game, manifests, matches, workers, ceiling_s, played, note)


def league_report(game: Game, manifests: list[BotManifest], matches: int, workers: int,
                  ceiling_s: float, played: list[Round], note: str | None) -> dict[str, Any]:
    """The JSON-ready report: the median round's figures and the median Celery overhead."""
    median_round = sorted(played, key=lambda one: one.ratio)[(len(played) - 1) // 2]
    local, ceiling = median_round.local, median_round.ceiling
    local_figures = local.to_dict()
    ratio = median_round.ratio
    startup_s = max(0.0, local.wall_s - local.matches * local.match_s / max(local.lanes, 1))
    overheads = [one.overhead for one in played if one.overhead is not None]
    overhead = round(statistics.median(overheads), 4) if overheads and note is None else None
    times = [one.time_overhead for one in played if one.time_overhead is not None]
    time_overhead = round(statistics.median(times), 4) if times and overhead is not None else None
    return {
        "game": game.id,
        "players": game.num_players,
        "bots": [{"name": bot.name, "version": bot.version, "path": bot.source}
                 for bot in manifests],
        "matches": matches,
        "workers": workers,
        "rounds": [{"ratio": one.ratio, "celery_overhead_fraction": one.overhead,
                    "celery_time_per_match_fraction": one.time_overhead} for one in played],
        "decisions_per_s": local_figures["decisions_per_s"],
        "matches_per_hour": local_figures["matches_per_hour"],
        "ceiling_decisions_per_s": ceiling["decisions_per_s"],
        "ratio": ratio,
        "wall_decisions_per_s": local_figures["wall_decisions_per_s"],
        "wall_ratio": _ratio(local_figures["wall_decisions_per_s"], ceiling["decisions_per_s"]),
        "startup_s": round(startup_s, 2),
        "celery_overhead_fraction": overhead,
        "celery_time_per_match_fraction": time_overhead,
        "goal_ratio": GOAL_RATIO,
        "goal_celery_overhead": GOAL_CELERY_OVERHEAD,
        "meets_ratio_goal": ratio >= GOAL_RATIO,
        "meets_celery_goal": None if overhead is None else overhead < GOAL_CELERY_OVERHEAD,
        "local": local_figures,
        "celery": (None if median_round.celery is None or overhead is None
                   else median_round.celery.to_dict()),
        "celery_note": note,
        "ceiling": ceiling,
        "ceiling_seconds": ceiling_s,
        "python": platform.python_version(),
    }


def check_options(matches: int, workers: int, ceiling_s: float, rounds: int = 1) -> None:
    """Raise ``ValueError`` for options out of range."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if matches < 1:
        raise ValueError(f"matches must be at least 1, got {matches}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if not math.isfinite(ceiling_s) or ceiling_s < 0:
        raise ValueError(f"ceiling seconds must not be negative, got {ceiling_s}")
