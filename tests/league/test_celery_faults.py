"""Faults survived by leagues run through Celery, against a real redis-server, real worker
processes and real process bots: a worker killed with SIGKILL mid-match, Redis restarted
mid-league, a match that fails every time, a match over its time limit, two workers racing for
one match, and an unreachable broker.

Every test drives the faults from the dispatcher's progress callback (in the test's thread),
so each fault happens at a known point of the league; nothing waits on a timer to hide a race.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select
from store.conftest import pg_cluster  # noqa: F401 - the fixture
from store.pgcluster import PostgresCluster

from arena.league.celery_app import (
    BrokerUnreachable,
    CelerySettings,
    make_celery_app,
)
from arena.league.create import LeagueSettings, create_league
from arena.league.dispatch import LeagueCounts, dispatch_league
from arena.league.tasks import send_match
from arena.match.timecontrol import TimeControl
from arena.store import Match, MatchRecordRow, MatchStatus, SeatResult, open_store

from .redis_server import RedisServer, redis_server  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]
"""The project's root, where ``python -m arena...`` finds the package."""

LEAGUE_TIMEOUT_S = 120.0
"""The longest a league of these tests may take before the test fails (never reached)."""

LOG_TAIL = 6000
"""How much of each worker's log a failed test shows."""

LEASE_S = 1.5
"""A short lease, so a dead worker's match is swept soon."""

SLOW_BOT = '''
import random
import time

from cardarena_sdk import Bot, MatchInfo, Request, match_seed, serve


class SlowBot(Bot):
    name = "slow"
    version = "1.0.0"

    def on_match_start(self, match: MatchInfo) -> None:
        self.rng = random.Random(match_seed(match))

    def act(self, request: Request) -> int:
        time.sleep({delay})
        return request.random_action(self.rng)


if __name__ == "__main__":
    serve(SlowBot)
'''


def slow_bot(folder: Path, delay_s: float) -> Path:
    """A process bot that waits ``delay_s`` before each random legal action."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "slow"\nversion = "1.0.0"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\ngames = ["*"]\n')
    (folder / "bot.py").write_text(SLOW_BOT.replace("{delay}", repr(delay_s)))
    return folder


class Workers:
    """Worker processes started with ``python -m arena.cli.worker``, each in its own
    session (so any bot it leaves behind is killed with it), with their logs."""

    def __init__(self, folder: Path, broker_url: str, db: str) -> None:
        """No worker yet."""
        self.folder = folder
        self.broker_url = broker_url
        self.db = db
        self.started: list[tuple[subprocess.Popen[bytes], Path]] = []

    def start(self, *options: str) -> subprocess.Popen[bytes]:
        """Start a worker with the given extra options."""
        log = self.folder / f"worker-{len(self.started)}.log"
        command = [sys.executable, "-m", "arena.cli.worker", "--broker", self.broker_url,
                   "--db", self.db, "--lease", str(LEASE_S), *options]
        with log.open("wb") as out:
            process = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        self.started.append((process, log))
        return process

    def log(self, index: int) -> str:
        """What worker ``index`` wrote so far."""
        return self.started[index][1].read_text(errors="replace")

    def wait_ready(self, index: int) -> None:
        """Wait until worker ``index`` consumes from the broker."""
        deadline = time.monotonic() + LEAGUE_TIMEOUT_S
        while " ready." not in self.log(index):
            assert self.started[index][0].poll() is None, self.log(index)
            assert time.monotonic() < deadline, self.log(index)
            time.sleep(0.05)

    def stop_all(self) -> None:
        """Kill every worker's whole session, then print the end of each log (pytest shows it
        when the test failed)."""
        for process, _ in self.started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        for index, (_, path) in enumerate(self.started):
            print(f"--- worker {index} ({path.name}), its last {LOG_TAIL} characters:")
            print(self.log(index)[-LOG_TAIL:])


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A short temp folder (bot sockets live under it)."""
    folder = Path(tempfile.mkdtemp(prefix="cat-celery-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, workdir: Path) -> str:
    """The URL of a fresh database: a SQLite file, or a database of a private PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{workdir / 'arena.db'}"
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database()


@pytest.fixture
def workers(workdir: Path, redis_server: RedisServer, db: str  # noqa: F811
            ) -> Iterator[Workers]:
    """Workers on the test's Redis and database, all killed at the end."""
    pool = Workers(workdir, redis_server.url, db)
    yield pool
    pool.stop_all()


def new_league(db: str, bots: list[str], deals: int, name: str = "faults") -> None:
    """A briscola (two seats) league of ``deals`` matches between two entrants."""
    with open_store(db) as store:
        create_league(store, name, bots, games=["briscola"], deals=deals,
                      settings=LeagueSettings(TimeControl(decision_ms=5000)))


def matches(db: str) -> list[Match]:
    """Every match of the database, by id."""
    with open_store(db) as store, store.session() as session:
        return list(session.scalars(select(Match).order_by(Match.id)))


def row_counts(db: str, table: type[SeatResult] | type[MatchRecordRow]) -> dict[str, int]:
    """Rows of ``table`` per match id."""
    with open_store(db) as store, store.session() as session:
        rows = session.execute(select(table.match_id, func.count()).group_by(table.match_id))
        return {match_id: count for match_id, count in rows}


def deadline_guard(action: Callable[[LeagueCounts], None]) -> Callable[[LeagueCounts], None]:
    """A progress callback running ``action`` and failing the test past the league timeout."""
    deadline = time.monotonic() + LEAGUE_TIMEOUT_S

    def progress(counts: LeagueCounts) -> None:
        """Run the action; give up past the deadline."""
        action(counts)
        if time.monotonic() > deadline:
            raise TimeoutError(f"the league did not end: {counts}")

    return progress


def kill_a_running_worker(db: str, killed: list[tuple[str, int]]
                          ) -> Callable[[LeagueCounts], None]:
    """A progress callback that, once a match is leased, kills the worker process holding it
    with SIGKILL (once), noting the match and the process in ``killed``."""

    def kill(counts: LeagueCounts) -> None:
        """Kill the lease holder of a running match, the first time one is seen."""
        if killed or not counts.leased:
            return
        for match in matches(db):
            if match.status is MatchStatus.LEASED and match.lease_owner:
                pid = int(match.lease_owner.split(":")[1])
                os.kill(pid, signal.SIGKILL)
                killed.append((match.id, pid))
                return

    return kill


def assert_played_once(db: str) -> list[Match]:
    """Every match is done with one result per seat and one record per rotation."""
    played = matches(db)
    results = row_counts(db, SeatResult)
    records = row_counts(db, MatchRecordRow)
    for match in played:
        assert match.status is MatchStatus.DONE, (match.id, match.last_error)
        assert results[match.id] == match.seats
        assert records[match.id] == len(match.rotations)
    return played


def test_worker_killed_mid_match_runs_the_match_again(
        workdir: Path, workers: Workers, db: str,
        redis_server: RedisServer) -> None:  # noqa: F811
    """SIGKILL of the worker process running a match: the match is swept and played again,
    with the same seed, by another worker process; one result row per seat."""
    new_league(db, [str(slow_bot(workdir / "slow", 0.05)), "random"], deals=2)
    supervisor = workers.start("--concurrency", "2")
    killed: list[tuple[str, int]] = []
    counts = dispatch_league(db, "faults", redis_server.url,
                             deadline_guard(kill_a_running_worker(db, killed)),
                             resend_after_s=2.0)
    assert counts.done == counts.total == 2
    assert killed, "no match was seen running"
    played = {match.id: match for match in assert_played_once(db)}
    match_id, pid = killed[0]
    assert played[match_id].attempts == 2
    assert str(pid) not in (played[match_id].lease_owner or "")
    with open_store(db) as store, store.session() as session:
        seeds = session.scalars(select(MatchRecordRow.record).where(
            MatchRecordRow.match_id == match_id)).all()
    assert {record["seed"] for record in seeds} == {played[match_id].seed}
    assert supervisor.poll() is None, workers.log(0)
    assert "was killed (signal 9); starting another" in workers.log(0)


@pytest.mark.parametrize("outage", ["restart", "during_a_match"])
def test_redis_restarted_mid_league_loses_and_repeats_nothing(
        outage: str, workdir: Path, workers: Workers, db: str,
        redis_server: RedisServer) -> None:  # noqa: F811
    """Redis killed and started again, empty, while a league runs (at once after a match, or
    down from the middle of a match to its end, so the worker cannot acknowledge it): every
    match is done, and played once."""
    new_league(db, [str(slow_bot(workdir / "slow", 0.02)), "heuristic"], deals=6)
    workers.start()
    down: list[str] = []
    """The matches running when Redis was killed (during_a_match)."""
    restarted: list[int] = []

    def restart_redis(counts: LeagueCounts) -> None:
        """Take Redis away and bring it back, empty, once."""
        if restarted:
            return
        if outage == "restart" and counts.done:
            redis_server.kill()
            redis_server.start()
            restarted.append(counts.done)
        elif outage == "during_a_match" and not down and counts.leased:
            redis_server.kill()
            down.extend(match.id for match in matches(db) if match.status is MatchStatus.LEASED)
            if not down:  # the match ended between the count and the kill: wait for another
                redis_server.start()
        elif down and all(match.status is MatchStatus.DONE for match in matches(db)
                          if match.id in down):
            redis_server.start()
            restarted.append(counts.done)

    counts = dispatch_league(db, "faults", redis_server.url, deadline_guard(restart_redis),
                             resend_after_s=1.0)
    assert restarted and restarted[0] < counts.total
    assert outage == "restart" or down
    assert counts.done == counts.total == 6
    assert [match.attempts for match in assert_played_once(db)] == [1] * 6


def test_a_match_failing_every_time_stops_at_the_attempt_cap(
        workdir: Path, workers: Workers, db: str,
        redis_server: RedisServer) -> None:  # noqa: F811
    """A bot folder gone after the league was made: each attempt fails in the arena, and the
    match ends void (VOID_INFRA) after three attempts, with no result rows."""
    bot = slow_bot(workdir / "gone", 0.0)
    new_league(db, [str(bot), "random"], deals=1)
    shutil.rmtree(bot)
    workers.start()
    counts = dispatch_league(db, "faults", redis_server.url, deadline_guard(lambda _: None))
    assert counts.void == counts.total == 1
    [match] = matches(db)
    assert match.status is MatchStatus.VOID
    assert match.attempts == 3
    assert "VOID_INFRA" in (match.last_error or "")
    assert row_counts(db, SeatResult) == {}
    assert workers.log(0).count(f"match {match.id}: pending") == 2


def test_a_match_over_its_time_limit_is_stopped_and_counted(
        workdir: Path, workers: Workers, db: str,
        redis_server: RedisServer) -> None:  # noqa: F811
    """A worker stops a match that runs past the time limit; at the attempt cap it is void."""
    new_league(db, [str(slow_bot(workdir / "slow", 0.2)), "random"], deals=1)
    workers.start("--match-time-limit", "1", "--visibility-timeout", "2")
    counts = dispatch_league(db, "faults", redis_server.url, deadline_guard(lambda _: None))
    assert counts.void == 1
    [match] = matches(db)
    assert match.attempts == 3
    assert "time limit of 1 s" in (match.last_error or "")
    assert row_counts(db, SeatResult) == {}


def test_two_workers_racing_for_one_match_one_wins(
        workdir: Path, workers: Workers, db: str,
        redis_server: RedisServer) -> None:  # noqa: F811
    """The same match sent twice to two idle workers: one plays it, the other is refused the
    lease and skips it; one attempt, one result per seat."""
    new_league(db, [str(slow_bot(workdir / "slow", 0.01)), "random"], deals=1)
    for index in range(2):
        workers.start()
        workers.wait_ready(index)
    [match] = matches(db)
    app = make_celery_app(CelerySettings(redis_server.url))
    assert send_match(app, match.id, db)
    assert send_match(app, match.id, db)
    deadline = time.monotonic() + LEAGUE_TIMEOUT_S
    logs = ["", ""]
    while not all(f"match {match.id}: " in log for log in logs):
        assert time.monotonic() < deadline, logs
        time.sleep(0.05)
        logs = [workers.log(0), workers.log(1)]
    outcomes = sorted(log.split(f"match {match.id}: ")[1].split()[0] for log in logs)
    assert outcomes == ["done", "skipped"]
    [played] = assert_played_once(db)
    assert played.attempts == 1


def test_an_unreachable_broker_is_one_line(workdir: Path) -> None:
    """A worker or a dispatcher pointed at a broker nobody listens on: one line, exit code 2."""
    db = f"sqlite:///{workdir / 'arena.db'}"
    url = f"redis+socket://{workdir / 'nobody.sock'}"
    finished = subprocess.run(
        [sys.executable, "-m", "arena.cli.worker", "--broker", url, "--db", db],
        cwd=REPO, capture_output=True, text=True, timeout=60)
    assert finished.returncode == 2
    assert finished.stderr.startswith("error: cannot reach the broker redis+socket://")
    assert len(finished.stderr.strip().splitlines()) == 1
    new_league(db, ["random", "heuristic"], deals=1)
    with pytest.raises(BrokerUnreachable, match="cannot reach the broker") as raised:
        dispatch_league(db, "faults", url)
    assert "\n" not in str(raised.value)
    assert [match.attempts for match in matches(db)] == [0]
