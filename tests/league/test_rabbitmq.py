"""Leagues through Celery with RabbitMQ as the broker (a private node of Debian's
``rabbitmq-server``): a league plays to the end, and a worker killed mid-match has its match
delivered again (AMQP redelivers an unacknowledged message when its consumer goes away)."""

from __future__ import annotations

from pathlib import Path

from arena.league.celery_app import CelerySettings, make_celery_app, visibility_timeout
from arena.league.dispatch import dispatch_league

from .rabbitmq_server import RabbitServer, rabbitmq_server  # noqa: F401 - the fixture
from .test_celery_faults import (
    Workers,
    assert_played_once,
    deadline_guard,
    kill_a_running_worker,
    new_league,
    slow_bot,
    workdir,  # noqa: F401 - the fixture
)


def test_an_amqp_url_makes_an_app_without_visibility_timeout(
        rabbitmq_server: RabbitServer) -> None:  # noqa: F811
    """AMQP redelivers on a lost consumer, not after a timeout: nothing to check at start-up."""
    app = make_celery_app(CelerySettings(rabbitmq_server.url))
    with app.connection_for_write() as connection:
        assert connection.transport.driver_type == "amqp"
    assert visibility_timeout(app) is None


def test_a_league_plays_through_rabbitmq_and_survives_a_killed_worker(
        workdir: Path, rabbitmq_server: RabbitServer) -> None:  # noqa: F811
    """Every match is played once; the match of a worker killed with SIGKILL runs again."""
    db = f"sqlite:///{workdir / 'arena.db'}"
    new_league(db, [str(slow_bot(workdir / "slow", 0.05)), "random"], deals=3)
    workers = Workers(workdir, rabbitmq_server.url, db)
    killed: list[tuple[str, int]] = []
    try:
        supervisor = workers.start("--concurrency", "2")
        counts = dispatch_league(db, "faults", rabbitmq_server.url,
                                 deadline_guard(kill_a_running_worker(db, killed)),
                                 resend_after_s=2.0)
        assert supervisor.poll() is None, workers.log(0)
    finally:
        workers.stop_all()
    assert counts.done == counts.total == 3
    assert killed, "no match was seen running"
    played = {match.id: match for match in assert_played_once(db)}
    assert played[killed[0][0]].attempts == 2
