"""Log output as JSON lines (``--log-format json``) for the service and the workers.

Each line is one JSON object with ``time`` (ISO 8601, UTC), ``level``, ``logger`` and
``message``, plus the fields a call passes in ``extra`` (``match_id``, ``league``, ``game``,
``bot``, ``reason``...). The format is chosen once at start-up and written to the environment
(``ARENA_LOG_FORMAT``), so that processes spawned by the service or the worker (pool workers,
Celery worker processes) log alike: they call ``configure_from_env``. JSON escapes every
control character, so a line is safe to print whatever a name holds.
"""

from __future__ import annotations

import logging
import os
import sys
from datetime import UTC, datetime
from typing import Any

LOG_FORMAT_ENV = "ARENA_LOG_FORMAT"
"""The environment variable that hands the log format down to spawned processes."""

LOG_FORMATS = ("text", "json")
"""The formats ``--log-format`` accepts; text is the default."""

_FIELDS = ("asctime", "levelname", "name", "message")
_RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}


def json_lines() -> logging.Formatter:
    """A formatter of one JSON object per record: time, level, logger, message and the
    record's extras (``python-json-logger``, imported only when JSON lines are asked for)."""
    from pythonjsonlogger.json import JsonFormatter

    class JsonLines(JsonFormatter):
        """JSON lines with the time in UTC."""

        def formatTime(self, record: logging.LogRecord,
                       datefmt: str | None = None) -> str:
            """The record's time, ISO 8601 in UTC with milliseconds."""
            moment = datetime.fromtimestamp(record.created, UTC)
            return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    return JsonLines(_FIELDS, rename_fields=_RENAMED, json_ensure_ascii=True)


def check_format(name: str) -> str:
    """The log format named, lowercased; ValueError naming the choices otherwise."""
    format_ = name.strip().lower()
    if format_ not in LOG_FORMATS:
        raise ValueError(f"unknown log format {name!r}: choose {', '.join(LOG_FORMATS)}")
    return format_


def configure_logging(name: str, level: int = logging.INFO) -> str:
    """Use the log format named in this process and in the processes it spawns; the format.
    Text leaves logging as it is; JSON sends every record of ``level`` and above to stderr as
    a JSON line."""
    format_ = check_format(name)
    os.environ[LOG_FORMAT_ENV] = format_
    if format_ == "json":
        root = logging.getLogger()
        for handler in list(root.handlers):
            root.removeHandler(handler)
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(json_lines())
        root.addHandler(handler)
        root.setLevel(level)
        logging.captureWarnings(True)
    return format_


def configure_from_env() -> None:
    """In a spawned process: log as the process that started it chose (nothing for text)."""
    if os.environ.get(LOG_FORMAT_ENV) == "json":
        configure_logging("json")


def json_handlers(logger: logging.Logger, **_: Any) -> None:
    """When JSON lines were chosen, make the handlers of ``logger`` (set up by a library, such
    as Celery's, whose logging signals call this) write them, and warnings go through logging
    (call it after anything else that sets up those handlers or ``warnings``)."""
    if os.environ.get(LOG_FORMAT_ENV) == "json":
        for handler in logger.handlers:
            handler.setFormatter(json_lines())
        logging.captureWarnings(True)


def json_logs() -> bool:
    """True when this process logs JSON lines."""
    return os.environ.get(LOG_FORMAT_ENV) == "json"
