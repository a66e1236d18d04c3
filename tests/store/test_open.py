"""Opening a store: where it lives, migrations, and the one-line errors."""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Barrier

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from arena.store import (
    Base,
    DatabaseUnreachable,
    Store,
    UnknownRevision,
    database_url,
    default_db_path,
    open_store,
)
from arena.store.migrate import alembic_config, head_revision

from .pgcluster import unavailable

OPENERS = 4
TABLES = {"users", "bots", "bot_versions", "leagues", "league_entrants", "matches",
          "seat_results", "match_records", "alembic_version"}


def test_a_fresh_database_is_migrated_to_the_head(store: Store) -> None:
    """Every table exists and the database is at the newest revision."""
    assert store.revision == head_revision()
    assert set(inspect(store.engine).get_table_names()) >= TABLES
    with store.engine.connect() as connection:
        assert connection.scalar(text("SELECT version_num FROM alembic_version")) == store.revision


def test_opening_again_keeps_the_data(store_url: str) -> None:
    """A second open finds the schema at the head and changes nothing."""
    with open_store(store_url) as first, first.engine.begin() as connection:
        connection.execute(text("INSERT INTO users (name, created_at) "
                                "VALUES ('ada', CURRENT_TIMESTAMP)"))
    with open_store(store_url) as second, second.engine.connect() as connection:
        assert connection.scalar(text("SELECT name FROM users")) == "ada"


def test_an_older_database_is_upgraded(store_url: str) -> None:
    """A database taken down to the base revision is brought back to the head."""
    with open_store(store_url) as store, store.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "base")
        connection.commit()
        assert "matches" not in inspect(connection).get_table_names()
    with open_store(store_url) as store:
        assert store.revision == head_revision()
        assert "matches" in inspect(store.engine).get_table_names()


def test_openers_racing_on_a_fresh_database_both_succeed(store_url: str) -> None:
    """Several open_store calls at once on a new database migrate it once, and all succeed."""
    barrier = Barrier(OPENERS)

    def race() -> str:
        """Wait for the other opener, then open."""
        barrier.wait(timeout=60)
        with open_store(store_url) as store:
            return store.revision

    with ThreadPoolExecutor(OPENERS) as pool:
        revisions = [future.result() for future in [pool.submit(race) for _ in range(OPENERS)]]
    assert revisions == [head_revision()] * OPENERS


def test_an_unknown_revision_is_one_clear_line(store_url: str) -> None:
    """A database written by a newer Card Arena is refused, naming the database and revision."""
    with open_store(store_url) as store, store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'f00dfeed9999'"))
        shown = store.url
    with pytest.raises(UnknownRevision) as raised:
        open_store(store_url)
    assert str(raised.value) == (
        f"the database {shown} is at revision f00dfeed9999 which this version of Card Arena "
        "does not know; upgrade card-arena")


def _closed_port() -> int:
    """A local TCP port nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_server_is_one_line_with_the_password_hidden() -> None:
    """Connection refused: the URL (password masked) and the reason, on one line."""
    pytest.importorskip("psycopg")
    port = _closed_port()
    with pytest.raises(DatabaseUnreachable) as raised:
        open_store(f"postgresql+psycopg://arena:s3cret@127.0.0.1:{port}/league")
    message = str(raised.value)
    head = f"cannot open the database postgresql+psycopg://arena:***@127.0.0.1:{port}/league: "
    assert message.startswith(head)
    assert len(message) > len(head)
    assert "s3cret" not in message
    assert "\n" not in message


def test_a_missing_driver_is_one_line() -> None:
    """A URL whose driver is not installed names the URL and the driver."""
    with pytest.raises(DatabaseUnreachable) as raised:
        open_store("mysql+nosuchdriver://arena:s3cret@localhost/league")
    message = str(raised.value)
    assert message.startswith("cannot open the database mysql+nosuchdriver://arena:***@")
    assert "s3cret" not in message
    assert "\n" not in message


def test_a_sqlite_file_that_cannot_be_created_is_one_line(tmp_path: Path) -> None:
    """A path under a regular file: the URL and why."""
    (tmp_path / "plain").write_text("not a folder")
    with pytest.raises(DatabaseUnreachable) as raised:
        open_store(tmp_path / "plain" / "arena.db")
    assert str(raised.value).startswith(f"cannot open the database sqlite:///{tmp_path}/plain")
    assert "\n" not in str(raised.value)


def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    """Every SQLite connection is set up the same way."""
    with open_store(tmp_path / "arena.db") as store, store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one() >= 1000


def test_the_default_database_is_under_xdg_data_home(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """$XDG_DATA_HOME/cardarena/arena.db, else ~/.local/share/cardarena/arena.db."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "cardarena" / "arena.db"
    with open_store() as store:
        assert store.backend == "sqlite"
    assert (tmp_path / "data" / "cardarena" / "arena.db").is_file()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / ".local" / "share" / "cardarena" / "arena.db"


def test_paths_and_urls_are_told_apart(tmp_path: Path) -> None:
    """A value with :// is a URL; anything else is a SQLite file, made absolute."""
    assert database_url("league.db").database == str(Path("league.db").absolute())
    assert database_url(tmp_path / "x.db").get_backend_name() == "sqlite"
    url = database_url("postgresql+psycopg://u:p@host/db")
    assert (url.get_backend_name(), url.host, url.database) == ("postgresql", "host", "db")


@pytest.mark.parametrize(("url", "expected"), [
    ("://nothing", "not a database URL: ://nothing"),
    ("postgresql+psycopg://arena:s3cret@host:port/db",
     "not a database URL: postgresql+psycopg://arena:***@host:port/db"),
    ("nosuchdb://somewhere/db",
     "cannot open the database nosuchdb://somewhere/db: SQLAlchemy knows no database 'nosuchdb'"),
])
def test_a_url_that_cannot_be_used_is_one_line(url: str, expected: str) -> None:
    """Bad URLs and unknown databases are named, without their password."""
    with pytest.raises(DatabaseUnreachable) as raised:
        open_store(url)
    assert str(raised.value) == expected


def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path) -> None:
    """A text file given as the database is refused, naming it."""
    path = tmp_path / "notes.db"
    path.write_text("shopping list: " + "eggs, " * 100)
    with pytest.raises(DatabaseUnreachable) as raised:
        open_store(path)
    assert str(raised.value) == f"cannot open the database sqlite:///{path}: file is not a database"


def test_without_postgresql_tests_skip_but_fail_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing PostgreSQL skips the PostgreSQL cases, except under CI=true."""
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        unavailable("not installed")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="required under CI=true: not installed"):
        unavailable("not installed")


def test_the_migrations_match_the_models(store: Store) -> None:
    """Autogenerate finds nothing to change: the migrated schema is the models' schema."""
    with store.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
