"""Schema migrations with Alembic, configured in code: no ``alembic.ini`` is needed.

``migrate(engine)`` brings a fresh or older database to the newest revision under a lock (an
immediate transaction on SQLite, an advisory lock on PostgreSQL), so processes that open the
same database at once migrate it once. A database at a revision this version does not know
(written by a newer Card Arena) is refused with ``UnknownRevision``.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import DBAPIError

from arena.store.engine import unreachable
from arena.store.errors import UnknownRevision
from arena.store.location import masked

MIGRATIONS = Path(__file__).parent / "migrations"
"""The Alembic script directory (``env.py`` and ``versions/``)."""

PG_LOCK_KEY = 0x43415244_4D494752
"""The PostgreSQL advisory lock held while migrating ("CARDMIGR")."""


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config for the store's migrations, run on ``connection`` when given."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


def script_directory() -> ScriptDirectory:
    """The store's migration scripts."""
    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    """The newest revision this version of Card Arena knows."""
    head = script_directory().get_current_head()
    assert head is not None, "the store has no migrations"
    return head


def current_revisions(connection: Connection) -> tuple[str, ...]:
    """The revisions the database is at (empty for a database never migrated)."""
    return tuple(MigrationContext.configure(connection).get_current_heads())


def migrate(engine: Engine) -> str:
    """Upgrade the database to the newest revision if it is behind; the revision it is at."""
    head = head_revision()
    try:
        with engine.connect() as connection:
            if _checked(engine, current_revisions(connection)) == (head,):
                return head
        with engine.connect() as connection:
            _lock(connection)
            if _checked(engine, current_revisions(connection)) != (head,):
                command.upgrade(alembic_config(connection), "head")
                _check_references(connection)
            connection.commit()
            _references_on(connection)
    except DBAPIError as error:
        raise unreachable(engine.url, error) from error
    return head


def _checked(engine: Engine, revisions: tuple[str, ...]) -> tuple[str, ...]:
    """The revisions, if this version knows every one of them; else ``UnknownRevision``."""
    known = {script.revision for script in script_directory().walk_revisions()}
    for revision in revisions:
        if revision not in known:
            raise UnknownRevision(
                f"the database {masked(engine.url)} is at revision {revision} which this "
                "version of Card Arena does not know; upgrade card-arena")
    return revisions


def _lock(connection: Connection) -> None:
    """Hold the database's migration lock until the connection's transaction ends (on SQLite
    with foreign keys off, so that copying a table to change it deletes no row referring to
    it)."""
    backend = connection.dialect.name
    if backend == "sqlite":
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    elif backend == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_LOCK_KEY})


def _check_references(connection: Connection) -> None:
    """On SQLite, refuse (roll back) a migration that left a row referring to a missing one."""
    if connection.dialect.name == "sqlite":
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise RuntimeError(f"the migration left rows referring to missing ones: {broken[:5]}")


def _references_on(connection: Connection) -> None:
    """On SQLite, turn foreign keys back on for the pooled connection."""
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql("PRAGMA foreign_keys=ON")
        connection.commit()
