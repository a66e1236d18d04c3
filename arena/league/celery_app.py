"""The Celery application that carries league matches from a dispatcher to workers.

One task, ``cardarena.run_match``, takes a match id and a database URL and hands the work to
``run_match`` under a lease: the database, not Celery, is the record of truth (no result
backend). Messages are acknowledged late and handed back when a worker is lost, a worker takes
one message at a time, and on brokers that redeliver unacknowledged messages after a
visibility timeout (Redis, SQS) that timeout must be longer than the match time limit, or a
match still running would be handed to a second worker: this is checked before anything starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from celery import Celery
from kombu.exceptions import OperationalError
from kombu.utils.url import maybe_sanitize_url

from arena.league.tasks import QUEUE, one_line, register

DEFAULT_MATCH_TIME_LIMIT_S = 1800.0
"""The longest a match may run on a worker before the attempt is given up."""

DEFAULT_VISIBILITY_TIMEOUT_S = 3600.0
"""How long Redis keeps a delivered, unacknowledged message before delivering it again."""

DEFAULT_LEASE_S = 60.0
"""How long a worker's lease on a match lasts without renewal (the sweeper's horizon)."""

CONNECT_ATTEMPTS = 2
"""Connection attempts made at start-up before the broker is reported unreachable."""

PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5,
                 "interval_max": 1.0}
"""How hard a publish retries on a lost connection before the caller hears of it."""

VISIBILITY_DRIVERS = {"redis": 3600.0, "sqs": 1800.0}
"""Transports that redeliver after a visibility timeout, with kombu's default for each."""


class DistributionError(Exception):
    """A broker or worker set-up problem, reported as one line."""

    exit_code = 2
    """The exit status of a command stopped by this problem."""


class BrokerUnreachable(DistributionError):
    """The broker cannot be reached (or its URL names no known transport)."""


class VisibilityTooShort(DistributionError):
    """The broker's visibility timeout does not outlast the match time limit."""


@dataclass(frozen=True)
class CelerySettings:
    """Where the broker is and the time limits both sides of the queue must agree on."""

    broker_url: str
    match_time_limit_s: float = DEFAULT_MATCH_TIME_LIMIT_S
    visibility_timeout_s: float = DEFAULT_VISIBILITY_TIMEOUT_S
    lease_s: float = DEFAULT_LEASE_S


def make_celery_app(settings: CelerySettings) -> Celery:
    """A Celery app for the broker, with the match task registered and the settings checked."""
    app = Celery("cardarena", broker=settings.broker_url, set_as_current=False)
    app.conf.update(
        task_default_queue=QUEUE,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        result_backend=None,
        task_serializer="json",
        accept_content=["json"],
        task_publish_retry_policy=PUBLISH_RETRY,
        broker_transport_options={"visibility_timeout": settings.visibility_timeout_s},
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        worker_send_task_events=False,
        worker_enable_remote_control=False,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        cardarena_match_time_limit_s=settings.match_time_limit_s,
        cardarena_lease_s=settings.lease_s,
    )
    register(app)
    check_visibility_timeout(app)
    return app


def visibility_timeout(app: Celery) -> float | None:
    """The broker's visibility timeout in seconds; None for brokers without one (AMQP)."""
    driver = _driver(app)
    if driver not in VISIBILITY_DRIVERS:
        return None
    options: dict[str, Any] = app.conf.broker_transport_options or {}
    return float(options.get("visibility_timeout", VISIBILITY_DRIVERS[driver]))


def check_visibility_timeout(app: Celery) -> None:
    """Refuse a visibility timeout that is not longer than the match time limit."""
    timeout = visibility_timeout(app)
    limit = float(app.conf.cardarena_match_time_limit_s)
    if limit <= 0:
        raise DistributionError(f"the match time limit must be positive, not {limit:g} s")
    if timeout is not None and timeout <= limit:
        raise VisibilityTooShort(
            f"the broker's visibility timeout ({timeout:g} s) must be longer than the match "
            f"time limit ({limit:g} s), or a running match would be delivered again; raise "
            f"--visibility-timeout or lower --match-time-limit")


def check_broker(app: Celery) -> None:
    """Connect to the broker once, or raise ``BrokerUnreachable`` with one line."""
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=CONNECT_ATTEMPTS, interval_start=0.2,
                                         interval_step=0.3, interval_max=0.5)
    except (OperationalError, OSError, KeyError, ImportError, ValueError) as error:
        raise BrokerUnreachable(
            f"cannot reach the broker {broker_label(app)}: {one_line(error)}") from error


def broker_label(app: Celery) -> str:
    """The broker URL with its password hidden."""
    return str(maybe_sanitize_url(str(app.conf.broker_url)))


def _driver(app: Celery) -> str:
    """The kind of broker the app's URL names (``redis``, ``amqp``, ``sqs``...)."""
    try:
        with app.connection_for_write() as connection:
            return str(connection.transport.driver_type)
    except (KeyError, ImportError, ValueError) as error:
        raise BrokerUnreachable(
            f"cannot use the broker {broker_label(app)}: {one_line(error)}") from error
