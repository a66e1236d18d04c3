"""The Celery app's settings and its start-up checks (no broker needed): the task's explicit
name and delivery guarantees, the visibility timeout refused when it does not outlast a match,
and bad broker or database URLs reported in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.league.celery_app import (
    BrokerUnreachable,
    CelerySettings,
    VisibilityTooShort,
    make_celery_app,
    visibility_timeout,
)
from arena.league.tasks import QUEUE, TASK_NAME, MatchRequest

REPO = Path(__file__).resolve().parents[2]


def worker(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``python -m arena.cli.worker`` with ``arguments``, to its end."""
    return subprocess.run([sys.executable, "-m", "arena.cli.worker", *arguments], cwd=REPO,
                          capture_output=True, text=True, timeout=60)


def test_the_match_task_is_named_acknowledged_late_and_taken_one_at_a_time() -> None:
    """One explicit task, acks_late, handed back when its worker is lost, prefetch 1, no
    result backend (the database is the record)."""
    app = make_celery_app(CelerySettings("redis://localhost:6379/0"))
    task = app.tasks[TASK_NAME]
    assert task.acks_late and task.reject_on_worker_lost and task.ignore_result
    assert task.Request is MatchRequest
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.task_default_queue == QUEUE
    assert not app.conf.result_backend
    assert app.conf.accept_content == ["json"]


def test_the_visibility_timeout_is_set_from_the_settings() -> None:
    """Redis gets the visibility timeout asked for; AMQP has none to check."""
    settings = CelerySettings("redis://localhost/0", match_time_limit_s=60,
                              visibility_timeout_s=120)
    assert visibility_timeout(make_celery_app(settings)) == 120
    amqp = CelerySettings("amqp://guest@localhost//", match_time_limit_s=10**6)
    assert visibility_timeout(make_celery_app(amqp)) is None


@pytest.mark.parametrize("timeout", [30.0, 60.0])
def test_a_visibility_timeout_not_longer_than_a_match_is_refused(timeout: float) -> None:
    """Equal or shorter than the match time limit: refused, naming both figures."""
    settings = CelerySettings("redis://localhost/0", match_time_limit_s=60,
                              visibility_timeout_s=timeout)
    with pytest.raises(VisibilityTooShort, match=f"timeout \\({timeout:g} s\\).*limit \\(60 s"):
        make_celery_app(settings)


def test_an_unknown_broker_kind_is_one_line() -> None:
    """A URL naming no transport."""
    with pytest.raises(BrokerUnreachable, match="cannot use the broker nope://"):
        make_celery_app(CelerySettings("nope://somewhere"))


def test_the_worker_refuses_to_start_with_a_short_visibility_timeout(tmp_path: Path) -> None:
    """One line and exit code 2, before any connection is tried."""
    finished = worker("--broker", "redis://localhost:1/0", "--db", str(tmp_path / "a.db"),
                      "--match-time-limit", "100", "--visibility-timeout", "50")
    assert finished.returncode == 2
    lines = finished.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: the broker's visibility timeout (50 s) must be longer")


def test_the_worker_reports_an_unreachable_database_in_one_line() -> None:
    """A database nobody serves, checked before the broker."""
    finished = worker("--broker", "redis://localhost:1/0",
                      "--db", "postgresql+psycopg://arena:secret@127.0.0.1:1/arena")
    assert finished.returncode == 2
    lines = finished.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: cannot open the database postgresql+psycopg://arena:***@")
