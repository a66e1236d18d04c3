"""Celery workers keep their process bots between matches and leave none behind when they end:
after a warm shutdown (SIGTERM) the worker stops them itself, after SIGKILL its pool's watchdog
does; no kept instance is ever shown one deal twice.

Real workers (``python -m arena.cli.worker``), a private Redis, SQLite and PostgreSQL, as in
``test_celery_faults``; without ``redis-server`` these tests skip, except under ``CI=true``.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from agents.spy import deals_per_instance, shown_twice, spy_folder, streams
from store.conftest import pg_cluster  # noqa: F401 - the fixture

from arena.league.dispatch import dispatch_league

from .redis_server import RedisServer, redis_server  # noqa: F401 - the fixture
from .test_celery_faults import (  # noqa: F401 - the fixtures
    LEAGUE_TIMEOUT_S,
    Workers,
    assert_played_once,
    db,
    deadline_guard,
    new_league,
    workdir,
    workers,
)
from .test_kept_bots import bot_processes


def wait_no_bot(folder: Path) -> list[int]:
    """Wait until no process runs in the bot folder; the ones still there at the deadline."""
    deadline = time.monotonic() + LEAGUE_TIMEOUT_S
    while (left := bot_processes(folder)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_worker_keeps_its_bot_and_leaves_none_behind(
        stop: signal.Signals, workdir: Path, workers: Workers, db: str,  # noqa: F811
        redis_server: RedisServer) -> None:  # noqa: F811
    """A worker plays a league's matches with two processes of the bot (one per rotation),
    kept between them, each shown every deal once; stopped (warm shutdown) or killed, it leaves
    no bot process behind."""
    log = workdir / "spy.log"
    folder = spy_folder(workdir / "spy", log)
    new_league(db, [str(folder), "random"], deals=3)
    worker = workers.start()
    workers.wait_ready(0)
    counts = dispatch_league(db, "faults", redis_server.url, deadline_guard(lambda _: None))
    assert counts.done == counts.total == 3
    played = assert_played_once(db)
    assert len(bot_processes(folder)) == 2
    deals = deals_per_instance(streams(log.read_text()), [match.seed for match in played])
    assert sorted(len(shown) for shown in deals.values()) == [3, 3]
    assert shown_twice(deals) == {}
    os.kill(worker.pid, stop)
    worker.wait(timeout=LEAGUE_TIMEOUT_S)
    assert wait_no_bot(folder) == []
