"""The ``--metrics-port`` and ``--log-format`` options of ``arena serve`` and ``arena worker``,
and the Prometheus endpoint they start.

The endpoint serves every count of the command's process and of the processes it spawns
(local pool workers, Celery worker processes): ``prometheus_client``'s multiprocess mode, its
folder made at start-up (or ``PROMETHEUS_MULTIPROC_DIR``, when set, used as it is) and removed
at the end. The service also serves what it reads from the store at scrape time
(``arena.league.gauges``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import typer

from arena.telemetry.logs import LOG_FORMATS, configure_logging
from arena.telemetry.metrics import instruments

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
"""Where ``prometheus_client`` keeps each process's counts in multiprocess mode."""

MetricsPort = Annotated[int | None, typer.Option(
    "--metrics-port", min=0, max=65535, metavar="PORT",
    help="Serve Prometheus metrics on this port at /metrics (default: off).")]
LogFormat = Annotated[str, typer.Option(
    "--log-format", metavar="FORMAT",
    help=f"How to write the log: {' or '.join(LOG_FORMATS)} (one JSON object per line).")]


class MetricsUnavailable(RuntimeError):
    """The metrics endpoint cannot be served: one line saying why."""


def use_log_format(name: str) -> None:
    """Log in the format named (``BadParameter`` for an unknown one)."""
    try:
        configure_logging(name)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="'--log-format'") from None


def service_log() -> Callable[[str], None]:
    """What the service says at start-up, as log records (for JSON lines)."""
    logger = logging.getLogger("arena.serve")

    def say(line: str) -> None:
        """Log one line of the service's at INFO."""
        logger.info(line)

    return say


@contextlib.contextmanager
def serving_metrics(port: int | None, host: str, store: Any = None) -> Iterator[int | None]:
    """Serve /metrics on ``host:port`` while the block runs (nothing when ``port`` is None);
    yields the port (useful with 0). With a ``store``, its figures are served too.
    ``MetricsUnavailable`` when ``prometheus_client`` is missing or the port is taken."""
    if port is None:
        yield None
        return
    folder, made = _multiproc_folder()
    try:
        from prometheus_client import CollectorRegistry, start_http_server
        from prometheus_client.multiprocess import MultiProcessCollector
    except ImportError:
        _remove(folder, made)
        raise MetricsUnavailable("metrics need prometheus_client: pip install "
                                 "'card-arena[server]' (or '[celery]' for a worker)") from None
    instruments()  # made now, in the folder: the endpoint shows them from the start
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=folder)
    if store is not None:
        from arena.league.gauges import StoreGauges
        registry.register(StoreGauges(store))
    try:
        server, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as error:
        _remove(folder, made)
        raise MetricsUnavailable(f"cannot serve metrics on {host}:{port}: "
                                 f"{error.strerror or error}") from None
    try:
        yield int(server.server_port)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        _remove(folder, made)


def _multiproc_folder() -> tuple[str, bool]:
    """The multiprocess folder (set in the environment for this process and its children),
    and whether it was made here (and so is removed at the end)."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        os.makedirs(given, exist_ok=True)
        return given, False
    folder = tempfile.mkdtemp(prefix="arena-metrics-")
    os.environ[MULTIPROC_ENV] = folder
    values = sys.modules.get("prometheus_client.values")
    if values is not None:  # imported before: metrics made from now on use the folder
        values.ValueClass = values.get_value_class()  # type: ignore[attr-defined]
    return folder, True


def _remove(folder: str, made: bool) -> None:
    """Remove a multiprocess folder made here, and forget it."""
    if made:
        os.environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(folder, ignore_errors=True)
