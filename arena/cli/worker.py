"""``arena worker`` (also ``python -m arena.cli.worker``): Celery workers on this host that run
the league matches sent through a broker (``arena.league.worker`` runs them)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
import typer.main

from arena.cli.helptext import examples_epilog, tidy
from arena.cli.store import DB_OPTION
from arena.cli.telemetry import (
    LogFormat,
    MetricsPort,
    MetricsUnavailable,
    serving_metrics,
    use_log_format,
)
from arena.league.celery_app import (
    DEFAULT_LEASE_S,
    DEFAULT_MATCH_TIME_LIMIT_S,
    DEFAULT_VISIBILITY_TIMEOUT_S,
    DistributionError,
)
from arena.league.worker import start_workers

BROKER = typer.Option(
    "--broker", metavar="URL",
    help="Take the matches from this Celery broker (redis://host:6379/0, amqp://...), the one "
         "`arena league run --broker` sends them to.")
CONCURRENCY = typer.Option("--concurrency", min=1,
                           help="Worker processes, each running one match at a time.")
LEASE = typer.Option(
    "--lease-s", min=0.1,
    help="Lease length in seconds (renewed while a match runs). A match whose worker died "
         "waits this long before the dispatcher sends it again; hence a shorter default than a "
         "local `arena league run`'s, whose pool hands a dead worker's leases back at once.")
LEASE_ALIAS = typer.Option("--lease", min=0.1, hidden=True,
                           help="The former name of --lease-s, still read.")
MATCH_TIME_LIMIT = typer.Option("--match-time-limit", min=0.1,
                                help="Seconds a match may run before it is stopped.")
VISIBILITY_TIMEOUT = typer.Option(
    "--visibility-timeout", min=0.1,
    help="Seconds Redis waits before delivering an unacknowledged message again; longer than "
         "the match time limit.")
LOGLEVEL = typer.Option("--loglevel", metavar="LEVEL", help="DEBUG, INFO, WARNING or ERROR.")
METRICS_HOST = typer.Option("--metrics-host", metavar="ADDRESS",
                            help="The address the metrics endpoint listens on.")


def worker_command(
    broker: Annotated[str, BROKER],
    db: Annotated[str | None, DB_OPTION] = None,
    concurrency: Annotated[int, CONCURRENCY] = 1,
    lease_s: Annotated[float, LEASE] = DEFAULT_LEASE_S,
    match_time_limit: Annotated[float, MATCH_TIME_LIMIT] = DEFAULT_MATCH_TIME_LIMIT_S,
    visibility_timeout: Annotated[float, VISIBILITY_TIMEOUT] = DEFAULT_VISIBILITY_TIMEOUT_S,
    loglevel: Annotated[str, LOGLEVEL] = "INFO",
    lease: Annotated[float | None, LEASE_ALIAS] = None,
    metrics_port: MetricsPort = None,
    metrics_host: Annotated[str, METRICS_HOST] = "127.0.0.1",
    log_format: LogFormat = "text",
) -> None:
    """Run league matches sent through the broker, on this host, until stopped (Ctrl-C)."""
    use_log_format(log_format)
    try:
        with serving_metrics(metrics_port, metrics_host):
            code = start_workers(broker, db, concurrency, lease_s if lease is None else lease,
                                 match_time_limit, visibility_timeout, loglevel)
    except MetricsUnavailable as error:
        raise DistributionError(str(error)) from None
    if code:
        raise typer.Exit(code)


def main(args: list[str] | None = None, prog_name: str | None = None) -> None:
    """``python -m arena.cli.worker`` (or ``arena worker``): the worker command on its own."""
    app = typer.Typer(add_completion=False, pretty_exceptions_show_locals=False)
    app.command(epilog=examples_epilog("worker"))(worker_command)
    command = typer.main.get_command(app)
    tidy(command)
    try:
        command.main(args=args, prog_name=prog_name, standalone_mode=False)
    except DistributionError as error:
        print("error: " + " ".join(str(error).split()), file=sys.stderr)
        sys.exit(error.exit_code)


if __name__ == "__main__":
    main()
