"""Engines: SQLite in WAL mode with foreign keys and a busy timeout, or a server by URL.

Failures to reach the database become one-line ``DatabaseUnreachable`` errors that name the URL
with its password hidden.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from arena.store.errors import DatabaseUnreachable
from arena.store.location import masked, sqlite_file

BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite writer waits for another one before giving up."""

WAL_RETRY_S = 0.01
"""How long to wait before trying again to switch a new SQLite file to WAL."""

CONNECT_TIMEOUT_S = 10
"""How long a connection to a database server may take."""

DRIVER_EXTRAS = {"psycopg": "postgres"}
"""The Card Arena extra that installs each database driver."""


def make_engine(url: URL) -> Engine:
    """An engine for the URL, set up for its backend (nothing is connected yet)."""
    try:
        if url.get_backend_name() == "sqlite":
            return _sqlite_engine(url)
        connect_args: dict[str, Any] = {}
        if url.get_backend_name() == "postgresql":
            connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
        return create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    except NoSuchModuleError as error:
        raise DatabaseUnreachable(f"cannot open the database {masked(url)}: SQLAlchemy knows no "
                                  f"database {url.drivername!r}") from error
    except ModuleNotFoundError as error:
        raise DatabaseUnreachable(f"cannot open the database {masked(url)}: "
                                  f"{_missing_driver(url, error)}") from error
    except ArgumentError as error:
        raise DatabaseUnreachable(f"cannot open the database {masked(url)}: "
                                  f"{first_line(error)}") from error


def _sqlite_engine(url: URL) -> Engine:
    """A SQLite engine whose connections use WAL, foreign keys and a busy timeout."""
    path = sqlite_file(url)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise DatabaseUnreachable(f"cannot open the database {masked(url)}: "
                                      f"cannot create {path.parent}: "
                                      f"{error.strerror or error}") from error
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
    wal = path is not None

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        """Turn on foreign keys, the busy timeout and (for files) WAL on each new connection."""
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            if wal:
                _use_wal(cursor)
                cursor.execute("PRAGMA synchronous=NORMAL")
        finally:
            cursor.close()

    return engine


def _use_wal(cursor: sqlite3.Cursor) -> None:
    """Put the file in WAL mode (kept in the file, so this changes a new database only).

    SQLite does not wait on its busy timeout while another connection changes the journal
    mode, which happens when several processes open a new database at once: wait here instead.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        try:
            mode = cursor.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(WAL_RETRY_S)
            continue
        if mode != "wal":
            raise sqlite3.OperationalError(f"cannot use WAL mode: the journal mode stays {mode}")


def check_connection(engine: Engine) -> None:
    """Connect once, or raise ``DatabaseUnreachable`` naming the URL and the reason."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except DBAPIError as error:
        raise unreachable(engine.url, error) from error


def unreachable(url: URL, error: BaseException) -> DatabaseUnreachable:
    """The one-line error for a database that could not be used."""
    cause = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    return DatabaseUnreachable(f"cannot open the database {masked(url)}: {first_line(cause)}")


def first_line(error: BaseException) -> str:
    """The first non-empty line of an error's message (its type name if it has none)."""
    for line in str(error).splitlines():
        if line.strip():
            return line.strip()
    return type(error).__name__


def _missing_driver(url: URL, error: ModuleNotFoundError) -> str:
    """Why the URL's driver cannot be loaded, and which extra brings it."""
    driver = url.drivername.partition("+")[2] or error.name or url.drivername
    extra = DRIVER_EXTRAS.get(driver)
    hint = f" (pip install 'card-arena[{extra}]')" if extra else ""
    return f"the database driver {driver} is not installed{hint}: {first_line(error)}"
