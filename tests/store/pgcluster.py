"""A private PostgreSQL cluster for tests: initdb in a temp folder, a unix socket, no TCP.

Debian's ``postgresql`` package puts its programs under ``/usr/lib/postgresql/<major>/bin``;
they are looked up there after ``PATH``. PostgreSQL refuses to run as root, so under root the
cluster belongs to the ``postgres`` user that the package creates.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

DEBIAN_ROOT = Path("/usr/lib/postgresql")
SERVICE_USER = "postgres"
SUPERUSER = "postgres"
SETTINGS = ("-c listen_addresses='' -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c shared_buffers=16MB -c max_connections=60")


class ClusterUnavailable(Exception):
    """PostgreSQL is not installed or its cluster could not start; the message says why."""


@dataclass
class PostgresCluster:
    """A running cluster: its folder (which holds the socket), its port and its programs."""

    root: Path
    port: int
    bindir: Path
    run_as: int | None
    """The uid the server runs as (None: the current user)."""

    @property
    def data(self) -> Path:
        """The cluster's data directory."""
        return self.root / "data"

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of a database of this cluster, over its unix socket."""
        return (f"postgresql+psycopg://{SUPERUSER}@/{database}"
                f"?host={self.root}&port={self.port}")

    def create_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(host=str(self.root), port=self.port, user=SUPERUSER,
                             dbname="postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        try:
            _run(self, [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                        "-w", "stop"])
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def unavailable(reason: str) -> NoReturn:
    """Skip a test that needs PostgreSQL, or fail it under CI=true, where it must run."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is required under CI=true: {reason}")
    pytest.skip(f"no PostgreSQL: {reason}")


def find_bindir() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: on PATH, else Debian's newest version."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    versions = sorted((path for path in DEBIAN_ROOT.glob("*/bin") if (path / "initdb").exists()),
                      key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0)
    return versions[-1] if versions else None


def start_cluster() -> PostgresCluster:
    """Create and start a cluster in a fresh short temp folder (raises ClusterUnavailable)."""
    bindir = find_bindir()
    if bindir is None:
        raise ClusterUnavailable("PostgreSQL is not installed (apt-get install postgresql)")
    run_as = _service_uid()
    root = Path(tempfile.mkdtemp(prefix="cat-pg-", dir="/tmp"))
    cluster = PostgresCluster(root=root, port=_free_port(), bindir=bindir, run_as=run_as)
    try:
        if run_as is not None:
            os.chown(root, run_as, pwd.getpwuid(run_as).pw_gid)
        _run(cluster, [str(bindir / "initdb"), "-D", str(cluster.data), "-U", SUPERUSER,
                       "--auth=trust", "--no-sync", "-E", "UTF8", "--no-locale"])
        _run(cluster, [str(bindir / "pg_ctl"), "-D", str(cluster.data), "-l",
                       str(root / "server.log"), "-w", "-t", "60", "-o",
                       f"-k {root} -p {cluster.port} {SETTINGS}", "start"])
    except (OSError, subprocess.CalledProcessError) as error:
        log = root / "server.log"
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        output = getattr(error, "stdout", "") or ""
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            cluster.stop()
        shutil.rmtree(root, ignore_errors=True)
        raise ClusterUnavailable(f"the PostgreSQL test cluster did not start: {error}\n"
                                 f"{output}{detail}") from error
    return cluster


def _service_uid() -> int | None:
    """The uid to run the server as: ``postgres`` under root, else the current user."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVICE_USER).pw_uid
    except KeyError as error:
        raise ClusterUnavailable(f"running as root and there is no {SERVICE_USER} user to run "
                                 "PostgreSQL as (apt-get install postgresql creates it)") from error


def _run(cluster: PostgresCluster, command: list[str]) -> None:
    """Run a PostgreSQL program as the cluster's user, in its folder; raise on failure."""
    extra: dict[str, object] = {}
    if cluster.run_as is not None:
        entry = pwd.getpwuid(cluster.run_as)
        extra = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C"}
    subprocess.run(command, cwd=cluster.root, env=env, check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120,
                   **extra)  # type: ignore[call-overload]


def _free_port() -> int:
    """A TCP port nobody listens on now (it only names the socket: the server has no TCP)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
