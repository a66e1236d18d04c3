"""``arena serve``: the gRPC API (accounts, uploads, leagues, watching) and the web pages."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.admin import REGISTRATION_OPTION, TOKEN_DAYS_OPTION, account_policy
from arena.cli.console import safe_console
from arena.cli.remote import RemoteCommandError
from arena.cli.serve_guards import (
    LIMIT_OPTION,
    TLS_CERT_OPTION,
    TLS_KEY_OPTION,
    describe_limits,
    service_limits,
    service_tls,
)
from arena.cli.store import bad_input, store_url_of
from arena.cli.telemetry import (
    LogFormat,
    MetricsPort,
    MetricsUnavailable,
    service_log,
    serving_metrics,
    use_log_format,
)
from arena.server.tls import TlsFiles
from arena.store.registration import DEFAULT_TOKEN_DAYS, Registration
from arena.telemetry.logs import json_logs

if TYPE_CHECKING:
    from arena.league.ladder_loop import LadderThread
    from arena.store import Store

STOP_GRACE_S = 2
"""Seconds the web pages' open requests and event streams get to end when the service stops."""


def serve_command(
    db: Annotated[str | None, typer.Option(
        "--db", metavar="PATH|URL", help="The database (default: arena.db under the user's "
                                         "data directory).")] = None,
    grpc_port: Annotated[int, typer.Option("--grpc-port", min=0, max=65535,
                                           help="The gRPC API's port.")] = 50051,
    web_port: Annotated[int, typer.Option("--web-port", min=0, max=65535,
                                          help="The web pages' port.")] = 8000,
    host: Annotated[str, typer.Option("--host", help="The address to listen on.")
                    ] = "127.0.0.1",
    workers: Annotated[int, typer.Option("--workers", "-w", min=1,
                                         help="Local worker processes for leagues.")] = 2,
    broker: Annotated[str | None, typer.Option(
        "--broker", metavar="URL", help="Run leagues through Celery workers at this broker.")
    ] = None,
    data: Annotated[Path | None, typer.Option(
        "--data", metavar="DIR", file_okay=False,
        help="Where uploads are kept (default: service/ under the user's data directory).")
    ] = None,
    metrics_port: MetricsPort = None,
    log_format: LogFormat = "text",
    tls_cert: Annotated[Path | None, TLS_CERT_OPTION] = None,
    tls_key: Annotated[Path | None, TLS_KEY_OPTION] = None,
    limit: Annotated[list[str] | None, LIMIT_OPTION] = None,
    ladder: Annotated[bool, typer.Option(
        "--ladder", help="Run the continuous ladder: every active bot keeps playing sets.")
    ] = False,
    games: Annotated[str | None, typer.Option(
        "--games", metavar="ID,ID", help="The ladder's games (default: briscola).")] = None,
    registration: Annotated[Registration, REGISTRATION_OPTION] = Registration.OPEN,
    token_days: Annotated[int, TOKEN_DAYS_OPTION] = DEFAULT_TOKEN_DAYS,
    rate_humans: Annotated[bool, typer.Option(
        "--rate-humans", help="Rate the tables people played (/play) on the leaderboards.")
    ] = False,
) -> None:
    """Serve the arena: the gRPC API (accounts, uploads, leagues, watching) and the web pages."""
    from arena.sandbox.janitor import JanitorSettingError, start_janitor
    from arena.server.api.server import start_api
    from arena.store import open_store
    from arena.store.location import data_dir

    use_log_format(log_format)
    tls, limits = service_tls(tls_cert, tls_key), service_limits(limit)
    url = store_url_of(db)
    with bad_input():
        store = open_store(url)
    ladder_games = open_service_ladder(store, ladder, games)
    try:
        janitor = start_janitor("arena serve")
    except JanitorSettingError as error:
        store.close()
        raise RemoteCommandError(str(error)) from None
    folder = data or data_dir() / "service"
    metrics = contextlib.ExitStack()
    try:
        metrics_at = metrics.enter_context(serving_metrics(metrics_port, host, store))
        api = start_api(store, url, folder, f"{host}:{grpc_port}", workers=workers,
                        broker=broker, limits=limits, tls=tls,
                        accounts=account_policy(registration, token_days),
                        rate_humans=rate_humans)
    except (OSError, MetricsUnavailable) as error:
        metrics.close()
        store.close()
        if janitor is not None:
            janitor.stop()
        raise RemoteCommandError(str(error)) from None
    say = service_log() if json_logs() else safe_console(stderr=True, soft_wrap=True).print
    say(f"arena service: gRPC API on {host}:{api.port}, database {store.url}, uploads in "
        f"{folder}")
    if tls is not None:
        say(f"TLS on the API and the web pages: certificate {tls.cert}")
    say(f"limits: {describe_limits(limits)}")
    say(f"accounts: {account_policy(registration, token_days).describe()}")
    if metrics_at is not None:
        say(f"metrics on http://{host}:{metrics_at}/metrics")
    ladder_run = None if ladder_games is None else start_ladder(url, ladder_games, workers,
                                                                broker)
    try:
        serve_web(url, host, web_port, say, tls, rate_humans) or api.server.wait_for_termination()
    except KeyboardInterrupt:
        pass
    finally:
        if ladder_run is not None:
            ladder_run.stop()
        api.stop()
        metrics.close()
        store.close()
        if janitor is not None:
            janitor.stop()


def serve_web(url: str, host: str, port: int, say: Callable[[str], None],
              tls: TlsFiles | None = None, rate_humans: bool = False) -> bool:
    """Serve the web pages (over https with ``tls``; people's tables rated with
    ``rate_humans``) until stopped; False (after one line) when they cannot be."""
    try:
        import uvicorn

        from arena.server.web import create_app
    except ImportError as error:
        say(f"web pages off: {error} (pip install 'card-arena[server]'); serving gRPC only")
        return False
    say(f"web pages on {'https' if tls else 'http'}://{host}:{port}/")
    uvicorn.run(create_app(url, rate_humans), host=host, port=port, log_level="warning",
                ssl_certfile=tls and str(tls.cert), ssl_keyfile=tls and str(tls.key),
                timeout_graceful_shutdown=STOP_GRACE_S,
                **({"log_config": None} if json_logs() else {}))
    return True


def open_service_ladder(store: Store, ladder: bool, games: str | None) -> tuple[str, ...] | None:
    """Open the ladder when asked (bad input: one ``error:`` line); its games as given (empty
    for the default), or None for no ladder."""
    if not ladder:
        if games is not None:
            store.close()
            raise RemoteCommandError("--games is for the ladder: add --ladder")
        return None
    from arena.league.ladder import open_ladder

    chosen = tuple(game.strip() for game in (games or "").split(",") if game.strip())
    try:
        with bad_input():
            open_ladder(store, games=chosen or None)
    except BaseException:
        store.close()
        raise
    return chosen


def start_ladder(url: str, games: tuple[str, ...], workers: int,
                 broker: str | None) -> LadderThread:
    """Run the ladder's loop in a thread, on the service's pool or broker."""
    from arena.league.ladder_loop import LadderOptions, LadderThread

    return LadderThread(url, LadderOptions(games=games or None, workers=workers, broker=broker))
