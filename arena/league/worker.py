"""``arena worker``: Celery workers that run league matches, one match per process.

Each worker process is a Celery worker with the ``solo`` pool: it takes one message, runs the
match in its main thread (where the match time limit is an alarm) and acknowledges the message
afterwards. ``--concurrency N`` starts N such processes with the ``spawn`` start method (gRPC
and fork do not mix) and starts a new one when one is killed. A worker killed with ``kill -9``
loses only the match it was running: its lease expires and the dispatcher's sweeper sends the
match again, to be run with the same seed; its unacknowledged message comes back after the
visibility timeout and is skipped, the match being done by then. Nothing a worker started
outlives it: its worker processes die with it (``die_with_parent``), and each process's reaper
removes its bots, containers and folders when that process ends (``arena.sandbox.lifeline``).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
from dataclasses import dataclass
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Annotated, Any

import typer
from celery.signals import after_setup_logger, after_setup_task_logger

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
from arena.sandbox.lifeline import die_with_parent
from arena.store import StoreError, database_url, open_store

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


BROKER = typer.Option("--broker", help="The broker URL: redis://host:6379/0, amqp://host//.")
DB = typer.Option("--db", help="The database: a SQLite file or a URL (default: the user's file).")
CONCURRENCY = typer.Option("--concurrency", min=1,
                           help="Worker processes, each running one match at a time.")
LEASE = typer.Option("--lease", min=0.1, help="Seconds a match's lease lasts without renewal.")
MATCH_TIME_LIMIT = typer.Option("--match-time-limit", min=0.1,
                                help="Seconds a match may run before it is stopped.")
VISIBILITY_TIMEOUT = typer.Option(
    "--visibility-timeout", min=0.1,
    help="Seconds Redis waits before delivering an unacknowledged message again; longer than "
         "the match time limit.")
LOGLEVEL = typer.Option("--loglevel", help="DEBUG, INFO, WARNING or ERROR.")


def worker_command(
    broker: Annotated[str, BROKER],
    db: Annotated[str | None, DB] = None,
    concurrency: Annotated[int, CONCURRENCY] = 1,
    lease: Annotated[float, LEASE] = DEFAULT_LEASE_S,
    match_time_limit: Annotated[float, MATCH_TIME_LIMIT] = DEFAULT_MATCH_TIME_LIMIT_S,
    visibility_timeout: Annotated[float, VISIBILITY_TIMEOUT] = DEFAULT_VISIBILITY_TIMEOUT_S,
    loglevel: Annotated[str, LOGLEVEL] = "INFO",
) -> None:
    """Run league matches sent through the broker, on this host, until stopped (Ctrl-C)."""
    try:
        store_url = database_url(db).render_as_string(hide_password=False)
    except StoreError as error:
        raise DistributionError(str(error)) from error
    settings = WorkerSettings(
        CelerySettings(broker, match_time_limit_s=match_time_limit,
                       visibility_timeout_s=visibility_timeout, lease_s=lease),
        store_url, loglevel.upper())
    check_worker(settings)
    code = run_worker(settings) if concurrency == 1 else run_workers(settings, concurrency)
    if code:
        raise typer.Exit(code)


def main(args: list[str] | None = None, prog_name: str | None = None) -> None:
    """``python -m arena.league.worker`` (or ``arena worker``): the worker command on its own."""
    app = typer.Typer(add_completion=False, pretty_exceptions_show_locals=False)
    app.command()(worker_command)
    try:
        app(args=args, prog_name=prog_name, standalone_mode=False)
    except DistributionError as error:
        print("error: " + " ".join(str(error).split()), file=sys.stderr)
        sys.exit(error.exit_code)


if __name__ == "__main__":
    main()
