"""``open_store``: the engine, the schema brought up to date, and sessions."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from arena.store.engine import check_connection, make_engine
from arena.store.location import database_url, masked
from arena.store.migrate import migrate


@dataclass
class Store:
    """An open database: its engine, its schema revision, and a factory of sessions."""

    engine: Engine
    revision: str
    sessions: sessionmaker[Session] = field(init=False)

    def __post_init__(self) -> None:
        """Make the session factory (objects stay readable after a commit)."""
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @property
    def url(self) -> str:
        """The database URL with its password hidden."""
        return masked(self.engine.url)

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql`` (or another SQLAlchemy backend name)."""
        return self.engine.dialect.name

    def session(self) -> Session:
        """A new session (use it as a context manager)."""
        return self.sessions()

    def close(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        """The store itself."""
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """Close the store."""
        self.close()


def open_store(url_or_path: str | Path | None = None) -> Store:
    """Open (and create or upgrade) the database: a URL, a SQLite path, or None for the default.

    Raises ``DatabaseUnreachable`` or ``UnknownRevision`` (both ``StoreError``) with one line.
    """
    engine = make_engine(database_url(url_or_path))
    try:
        check_connection(engine)
        revision = migrate(engine)
    except BaseException:
        engine.dispose()
        raise
    return Store(engine, revision)
