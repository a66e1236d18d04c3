"""Where the database is: a file under the user's data directory by default, a path or a URL.

The default follows the XDG base directory convention: ``$XDG_DATA_HOME/cardarena/arena.db``,
else ``~/.local/share/cardarena/arena.db``. A value with ``://`` is a SQLAlchemy URL
(``sqlite:///league.db``, ``postgresql+psycopg://user:secret@host/arena``); anything else is the
path of a SQLite file.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from arena.store.errors import DatabaseUnreachable

APP_DIR = "cardarena"
DB_FILE = "arena.db"


def data_dir() -> Path:
    """The user's data directory for Card Arena (not created)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return root / APP_DIR


def default_db_path() -> Path:
    """The SQLite file used when no database is named."""
    return data_dir() / DB_FILE


def database_url(url_or_path: str | Path | None = None) -> URL:
    """The SQLAlchemy URL for a URL, a SQLite file path, or None (the default file)."""
    if url_or_path is None:
        return sqlite_url(default_db_path())
    if isinstance(url_or_path, Path) or "://" not in url_or_path:
        return sqlite_url(Path(url_or_path))
    try:
        return make_url(url_or_path)
    except (ArgumentError, ValueError) as error:
        raise DatabaseUnreachable(f"not a database URL: {_hide_password(url_or_path)}") from error


def sqlite_url(path: Path) -> URL:
    """The URL of a SQLite file, made absolute."""
    return URL.create("sqlite", database=str(path.expanduser().absolute()))


def masked(url: URL) -> str:
    """The URL as text with its password hidden."""
    return url.render_as_string(hide_password=True)


def sqlite_file(url: URL) -> Path | None:
    """The file of a SQLite URL; None for other databases and in-memory SQLite."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    if url.database.startswith("file:"):
        return None
    return Path(url.database)


def _hide_password(text: str) -> str:
    """A URL-like text with anything between ``user:`` and ``@`` replaced by ``***``."""
    scheme, _, rest = text.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return text
    return f"{scheme}://{credentials.split(':', 1)[0]}:***@{host}"
