"""A private RabbitMQ node for tests (Debian's ``rabbitmq-server``) in a short temp folder.

``rabbitmq_server`` (a fixture) starts one node per test module on free ports, with its own
database, logs and Erlang cookie, and stops it at the end. Without ``rabbitmq-server`` the
tests skip, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kombu import Connection

SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"
CTL = "/usr/lib/rabbitmq/bin/rabbitmqctl"
START_TIMEOUT_S = 90.0
"""How long the node may take to accept AMQP connections (Erlang starts slowly on a busy box)."""


class RabbitUnavailable(RuntimeError):
    """rabbitmq-server is not installed or did not start."""


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RabbitServer:
    """One RabbitMQ node with its own folder, ports and node name."""

    def __init__(self, folder: Path) -> None:
        """A node keeping everything in ``folder`` (not started yet)."""
        self.folder = folder
        self.port = free_port()
        self.name = f"cat{os.getpid()}x{self.port}@localhost"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The broker URL of the node (the guest user may log in from localhost)."""
        return f"amqp://guest:guest@127.0.0.1:{self.port}//"

    def env(self) -> dict[str, str]:
        """The environment that keeps the node private to this folder."""
        home = self.folder / "home"
        home.mkdir(exist_ok=True)
        return {**os.environ, "HOME": str(home), "RABBITMQ_NODENAME": self.name,
                "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1", "RABBITMQ_NODE_PORT": str(self.port),
                "RABBITMQ_DIST_PORT": str(free_port()),
                "RABBITMQ_MNESIA_BASE": str(self.folder / "mnesia"),
                "RABBITMQ_LOG_BASE": str(self.folder / "log"),
                "RABBITMQ_PID_FILE": str(self.folder / "node.pid"),
                "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.folder / "enabled_plugins"),
                "RABBITMQ_CONFIG_FILE": str(self.folder / "rabbitmq"),
                "RABBITMQ_ADVANCED_CONFIG_FILE": str(self.folder / "advanced.config")}

    def start(self) -> None:
        """Start the node and wait until AMQP answers; ``RabbitUnavailable`` if it cannot."""
        (self.folder / "enabled_plugins").write_text("[].\n")
        log = (self.folder / "server.out").open("wb")
        self.process = subprocess.Popen([SERVER], env=self.env(), stdin=subprocess.DEVNULL,
                                        stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        log.close()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RabbitUnavailable(f"rabbitmq-server did not start: {self.log_tail()}")
            time.sleep(0.2)

    def answers(self) -> bool:
        """True once an AMQP connection opens."""
        try:
            with Connection(self.url, connect_timeout=1) as connection:
                connection.connect()
                return True
        except OSError:
            return False

    def stop(self) -> None:
        """Stop the node and every process of its session."""
        if self.process is None:
            return
        subprocess.run([CTL, "-n", self.name, "stop"], env=self.env(), check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait(timeout=30)
        self.process = None

    def log_tail(self) -> str:
        """The end of the node's output."""
        path = self.folder / "server.out"
        return path.read_text(errors="replace")[-2000:] if path.exists() else "(no output)"


def unavailable(reason: str) -> None:
    """Skip the test, or fail it under CI=true."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"rabbitmq-server is required under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def rabbitmq_server() -> Iterator[RabbitServer]:
    """A RabbitMQ node for the tests of a module (an Erlang node takes seconds to start),
    stopped and removed afterwards."""
    if not os.access(SERVER, os.X_OK):
        unavailable("rabbitmq-server is not installed (apt-get install rabbitmq-server)")
    folder = Path(tempfile.mkdtemp(prefix="cat-rmq-", dir="/tmp"))
    server = RabbitServer(folder)
    try:
        server.start()
    except RabbitUnavailable as error:
        shutil.rmtree(folder, ignore_errors=True)
        unavailable(str(error))
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
