"""Celery workers that run league matches, one match per process (``arena worker``).

Each worker process is a Celery worker with the ``solo`` pool: it takes one message, runs the
match in its main thread (where the match time limit is an alarm) and acknowledges the message
afterwards. ``--concurrency N`` starts N such processes with the ``spawn`` start method (gRPC
and fork do not mix) and starts a new one when one is killed. A worker killed with ``kill -9``
loses only the match it was running: its lease expires and the dispatcher's sweeper sends the
match again, to be run with the same seed; its unacknowledged message comes back after the
visibility timeout and is skipped, the match being done by then. Nothing a worker started
outlives it: its worker processes die with it (``die_with_parent``), and each process's reaper
removes its bots, containers and folders when that process ends (``arena.sandbox.lifeline``).
The worker's janitor (``arena.sandbox.janitor``) removes, at start and periodically, the
containers and socket folders of arenas on this host whose reaper could not.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
from dataclasses import dataclass
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

from celery.signals import after_setup_logger, after_setup_task_logger

from arena.agents.seats import HOST_MATCHES_ENV
from arena.league.celery_app import (
    DEFAULT_LEASE_S,
    DEFAULT_MATCH_TIME_LIMIT_S,
    DEFAULT_VISIBILITY_TIMEOUT_S,
    CelerySettings,
    DistributionError,
    check_broker,
    make_celery_app,
)
from arena.match.safetext import safe_logging
from arena.sandbox.janitor import JanitorSettingError, start_janitor
from arena.sandbox.lifeline import die_with_parent
from arena.store import StoreError, database_url, open_store
from arena.telemetry.logs import configure_from_env, json_handlers

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker process needs: the broker settings, the database and how much to log."""

    celery: CelerySettings
    store_url: str
    loglevel: str = "INFO"


def check_worker(settings: WorkerSettings) -> None:
    """Check the visibility timeout, the database and the broker, raising one line if needed."""
    app = make_celery_app(settings.celery)
    try:
        with open_store(settings.store_url):
            pass
    except StoreError as error:
        raise DistributionError(str(error)) from error
    check_broker(app)


def safe_celery_logs(logger: logging.Logger, **_: Any) -> None:
    """Celery set up a logger: make its output safe to print (``safe_logging``)."""
    safe_logging(logger)


def run_worker(settings: WorkerSettings) -> int:
    """Run one ``solo`` Celery worker in this process until it is told to stop; its exit code.
    A worker process started by ``run_workers`` dies with it."""
    die_with_parent()
    after_setup_logger.connect(safe_celery_logs, weak=False)
    after_setup_task_logger.connect(safe_celery_logs, weak=False)
    after_setup_logger.connect(json_handlers, weak=False)
    after_setup_task_logger.connect(json_handlers, weak=False)
    app = make_celery_app(settings.celery)
    worker = app.Worker(
        hostname=f"cardarena-{os.getpid()}@{socket.gethostname()}",
        pool_cls="solo", concurrency=1, loglevel=settings.loglevel, quiet=True,
        without_gossip=True, without_mingle=True, without_heartbeat=True,
    )
    worker.start()
    return int(worker.exitcode or 0)


def run_workers(settings: WorkerSettings, count: int) -> int:
    """Run ``count`` worker processes (spawned) until stopped, replacing any that is killed by a
    signal (one that exits by itself, as on a broker it cannot use, is not replaced)."""
    logging.basicConfig(level=settings.loglevel,
                        format="[%(asctime)s: %(levelname)s/%(processName)s] %(message)s")
    safe_logging()
    configure_from_env()
    context = multiprocessing.get_context("spawn")
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        """Ask every worker for a warm shutdown (SIGTERM: finish the match in hand) once, and
        stop replacing them; a Ctrl-C has reached them already and a second would be cold."""
        nonlocal stopping
        if stopping:
            return
        stopping = True
        for process in processes:
            if process.pid is not None and process.is_alive():
                os.kill(process.pid, signal.SIGTERM)

    def start() -> BaseProcess:
        """A new worker process."""
        process = context.Process(target=run_worker, args=(settings,), daemon=False)
        process.start()
        return process

    processes = [start() for _ in range(count)]
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    code = 0
    try:
        while processes:
            wait([process.sentinel for process in processes])
            for process in [process for process in processes if not process.is_alive()]:
                processes.remove(process)
                process.join()
                exitcode = process.exitcode or 0
                if exitcode < 0 and not stopping:
                    log.warning("worker process %s was killed (signal %s); starting another",
                                process.pid, -exitcode)
                    processes.append(start())
                elif exitcode > 0:
                    code = code or exitcode
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code


def start_workers(broker: str, db: str | None = None, concurrency: int = 1,
                  lease_s: float = DEFAULT_LEASE_S,
                  match_time_limit_s: float = DEFAULT_MATCH_TIME_LIMIT_S,
                  visibility_timeout_s: float = DEFAULT_VISIBILITY_TIMEOUT_S,
                  loglevel: str = "INFO") -> int:
    """Check the settings, then run ``concurrency`` workers until stopped; their exit code
    (``DistributionError`` for a database, broker or timeout that cannot be used)."""
    try:
        store_url = database_url(db).render_as_string(hide_password=False)
    except StoreError as error:
        raise DistributionError(str(error)) from error
    settings = WorkerSettings(
        CelerySettings(broker, match_time_limit_s=match_time_limit_s,
                       visibility_timeout_s=visibility_timeout_s, lease_s=lease_s),
        store_url, loglevel.upper())
    check_worker(settings)
    try:
        janitor = start_janitor("arena worker")
    except JanitorSettingError as error:
        raise DistributionError(str(error)) from None
    os.environ[HOST_MATCHES_ENV] = str(concurrency)  # inherited by the workers' matches
    try:
        return run_worker(settings) if concurrency == 1 else run_workers(settings, concurrency)
    finally:
        if janitor is not None:
            janitor.stop()
