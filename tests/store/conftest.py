"""Fixtures for store tests: every test runs on SQLite (a temp file) and on PostgreSQL.

The PostgreSQL cluster is private to the test session (one per xdist worker): started in a
short temp folder on a unix socket, stopped and removed at the end. Without PostgreSQL the
PostgreSQL cases skip, except under CI=true, where they fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store import Store, open_store

from .pgcluster import ClusterUnavailable, PostgresCluster, start_cluster, unavailable

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    """A private PostgreSQL cluster for the test session."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("the psycopg driver is not installed (pip install 'psycopg[binary]')")
    try:
        cluster = start_cluster()
    except ClusterUnavailable as error:
        unavailable(str(error))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a fresh, empty database on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database()


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """An open store on a fresh database, closed afterwards."""
    with open_store(store_url) as opened:
        yield opened
