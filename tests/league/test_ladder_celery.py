"""The ladder on Celery: its loop sends the sets it appends to a real ``arena worker`` through
a private Redis; each set is played once. Without ``redis-server`` this skips, except under
``CI=true``."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from arena.league.ladder import join_ladder, open_ladder
from arena.league.ladder_loop import LadderOptions, LadderThread
from arena.store import MatchRecordRow, MatchStatus, SeatResult, open_store

from .redis_server import RedisServer, redis_server  # noqa: F401 - the fixture
from .test_celery_faults import (  # noqa: F401 - the fixtures
    LEAGUE_TIMEOUT_S,
    Workers,
    matches,
    row_counts,
    workdir,
    workers,
)

RANDOM_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "random"
SETS = 8


@pytest.fixture
def db(workdir: Path) -> str:  # noqa: F811
    """A SQLite file (the Celery path does not depend on the database kind)."""
    return f"sqlite:///{workdir / 'arena.db'}"


def test_the_ladder_plays_its_sets_on_celery_workers(
        workdir: Path, workers: Workers, db: str,  # noqa: F811
        redis_server: RedisServer) -> None:  # noqa: F811
    """The policies and a process bot play sets sent through Celery; stopped, the ladder has
    its done sets each written once, and the process bot had its placement sets."""
    with open_store(db) as store:
        league_id = open_ladder(store)
        assert join_ladder(store, league_id, str(RANDOM_BOT))
    workers.start()
    workers.wait_ready(0)
    ladder = LadderThread(db, LadderOptions(broker=redis_server.url, join_uploads=False))
    try:
        deadline = time.monotonic() + LEAGUE_TIMEOUT_S
        while sum(match.status == MatchStatus.DONE for match in matches(db)) < SETS:
            assert time.monotonic() < deadline, workers.log(0)
            assert ladder.thread.is_alive()
            time.sleep(0.2)
    finally:
        ladder.stop()
    assert not ladder.thread.is_alive()
    played = [match for match in matches(db) if match.status == MatchStatus.DONE]
    records, seats = row_counts(db, MatchRecordRow), row_counts(db, SeatResult)
    assert len(played) >= SETS
    assert all(records[match.id] == len(match.rotations) and seats[match.id] == match.seats
               for match in played)
    assert len({match.position for match in matches(db)}) == len(matches(db))
    bot = max(version for match in played for version in match.entrants)
    assert sum(bot in match.entrants for match in played) >= 5


def test_a_ladder_started_before_its_broker_runs_once_the_broker_answers(
        workdir: Path, workers: Workers, db: str,  # noqa: F811
        redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    """With the broker down the ladder's loop says so once and keeps trying, playing nothing;
    once the broker is up (and a worker with it) its sets are played."""
    redis_server.stop()
    with open_store(db) as store:
        open_ladder(store)
    caplog.set_level(logging.INFO, logger="arena.league.ladder_loop")
    ladder = LadderThread(db, LadderOptions(broker=redis_server.url, join_uploads=False))
    try:
        deadline = time.monotonic() + LEAGUE_TIMEOUT_S
        while not any("ladder waiting for its broker" in record.getMessage()
                      for record in caplog.records):
            assert time.monotonic() < deadline and ladder.thread.is_alive()
            time.sleep(0.05)
        assert not any(match.status == MatchStatus.DONE for match in matches(db))
        redis_server.start()
        workers.start()
        workers.wait_ready(0)
        while sum(match.status == MatchStatus.DONE for match in matches(db)) < 2:
            assert time.monotonic() < deadline, workers.log(0)
            assert ladder.thread.is_alive()
            time.sleep(0.2)
    finally:
        ladder.stop()
    waiting = [record for record in caplog.records
               if "ladder waiting for its broker" in record.getMessage()]
    assert len(waiting) == 1, "the same problem is logged once"
    assert any("the broker answers" in record.getMessage() for record in caplog.records)
