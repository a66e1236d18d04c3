"""``arena serve``: the gRPC API (accounts, uploads, leagues, watching) and the web pages."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.console import safe_console
from arena.cli.remote import RemoteCommandError
from arena.cli.store import bad_input, store_url_of


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
) -> None:
    """Serve the arena: the gRPC API (accounts, uploads, leagues, watching) and the web pages."""
    from arena.sandbox.janitor import JanitorSettingError, start_janitor
    from arena.server.api.server import start_api
    from arena.store import open_store
    from arena.store.location import data_dir

    url = store_url_of(db)
    with bad_input():
        store = open_store(url)
    try:
        janitor = start_janitor("arena serve")
    except JanitorSettingError as error:
        store.close()
        raise RemoteCommandError(str(error)) from None
    folder = data or data_dir() / "service"
    try:
        api = start_api(store, url, folder, f"{host}:{grpc_port}", workers=workers,
                        broker=broker)
    except OSError as error:
        store.close()
        if janitor is not None:
            janitor.stop()
        raise RemoteCommandError(str(error)) from None
    say = safe_console(stderr=True, soft_wrap=True).print
    say(f"arena service: gRPC API on {host}:{api.port}, database {store.url}, uploads in "
        f"{folder}")
    try:
        serve_web(url, host, web_port, say) or api.server.wait_for_termination()
    except KeyboardInterrupt:
        pass
    finally:
        api.stop()
        store.close()
        if janitor is not None:
            janitor.stop()


def serve_web(url: str, host: str, port: int, say: Callable[[str], None]) -> bool:
    """Serve the web pages until stopped; False (after one line) when they cannot be."""
    try:
        import uvicorn

        from arena.server.web import create_app
    except ImportError as error:
        say(f"web pages off: {error} (pip install 'card-arena[server]'); serving gRPC only")
        return False
    say(f"web pages on http://{host}:{port}/")
    uvicorn.run(create_app(url), host=host, port=port, log_level="warning")
    return True
