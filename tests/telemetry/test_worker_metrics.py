"""``arena worker --metrics-port --log-format json``: a real Celery worker on a private Redis
plays a league sent by the dispatcher; its own endpoint counts the matches, decisions and the
crashing bot's faults, and its log (Celery's lines too) is JSON lines."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

from league.redis_server import RedisServer, redis_server  # noqa: F401 - the fixture
from sqlalchemy import select

from arena.league.create import LeagueSettings, create_league
from arena.league.dispatch import dispatch_league
from arena.match.timecontrol import TimeControl
from arena.store import open_store
from arena.store.models import MatchRecordRow

from .scraping import CRASHER, bot_env, free_port, json_lines, scrape, value, wait_for

CELERY_NOTICE = re.compile(r"^worker: (Warm|Cold) shutdown \(MainProcess\)$", re.MULTILINE)
"""The notice Celery writes from its signal handler without the logging module (documented)."""


def test_a_worker_counts_its_matches_and_logs_json(
        tmp_path: Path, redis_server: RedisServer) -> None:  # noqa: F811
    """Two matches of the random policy against a crashing bot: the worker's endpoint shows
    both done, every stored decision and a CRASH per deal; each log line parses."""
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    with open_store(db) as store:
        create_league(store, "celery", ["random", str(CRASHER)], ["briscola"], deals=2,
                      settings=LeagueSettings(TimeControl(decision_ms=10_000)))
    port = free_port()
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "arena.cli.worker", "--broker", redis_server.url, "--db", db,
             "--metrics-port", str(port), "--log-format", "json"],
            env=bot_env(), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)

    def ended() -> str | None:
        """The log once the worker stopped."""
        return None if worker.poll() is None else log.read_text()

    try:
        first = wait_for(lambda: scrape(port), "the worker's metrics", ended)
        assert value(first, "arena_lease_expiries_total") == 0
        wait_for(lambda: " ready." in log.read_text(), "the worker to consume", ended)
        counts = dispatch_league(db, "celery", redis_server.url)
        assert counts.done == counts.total == 2
        samples = wait_for(
            lambda: (s := scrape(port)) and value(
                s, "arena_matches_total", game="briscola", result="done") == 2 and s,
            "both matches counted", ended)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)
    with open_store(db) as store, store.session() as session:
        decisions = sum(len(row.record["actions"])
                        for row in session.scalars(select(MatchRecordRow)))
    assert value(samples, "arena_decisions_total", game="briscola") == decisions > 0
    assert value(samples, "arena_faults_total", reason="CRASH") == 4
    assert "arena_queue_depth" not in {name for name, _ in samples}
    lines = json_lines(CELERY_NOTICE.sub("", log.read_text()))
    assert any(line["logger"].startswith("celery") for line in lines)
    assert [line["reason"] for line in lines if line["message"] == "seat fault"] == ["CRASH"] * 4
