"""A private redis-server on a Unix socket in a folder, without persistence: the broker of
``arena bench league`` and of the league's tests. ``stop``, ``kill`` and ``start`` take it
away and bring it back on the same socket (empty, as a restarted Redis without persistence is).
The server dies with the thread that started it (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from arena.sandbox.lifeline import pdeathsig_preexec

START_TIMEOUT_S = 10.0
"""How long redis-server may take to answer on its socket."""


class RedisUnavailable(RuntimeError):
    """redis-server is not installed or did not start."""


def redis_binary() -> str:
    """The path of redis-server, or ``RedisUnavailable``."""
    binary = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/sbin:/usr/bin")
    if binary is None:
        raise RedisUnavailable("redis-server is not installed (apt-get install redis-server)")
    return binary


class RedisServer:
    """One redis-server process on a unix socket, which can be stopped and started again."""

    def __init__(self, binary: str, folder: Path) -> None:
        """A server that keeps its socket and log in ``folder`` (not started yet)."""
        self.binary = binary
        self.folder = folder
        self.socket_path = folder / "redis.sock"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The broker URL of the server."""
        return f"redis+socket://{self.socket_path}"

    def start(self) -> None:
        """Start the server and wait until it answers PING; ``RedisUnavailable`` if it cannot."""
        self.socket_path.unlink(missing_ok=True)
        command = [self.binary, "--port", "0", "--unixsocket", str(self.socket_path),
                   "--unixsocketperm", "700", "--save", "", "--appendonly", "no",
                   "--dir", str(self.folder), "--logfile", str(self.folder / "redis.log")]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        preexec_fn=pdeathsig_preexec())
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.ping():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RedisUnavailable(f"redis-server did not start: {self.log_tail()}")
            time.sleep(0.02)

    def ping(self) -> bool:
        """True if the server answers PING on its socket."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.settimeout(1.0)
                client.connect(str(self.socket_path))
                client.sendall(b"PING\r\n")
                return client.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Stop the server (SIGTERM) and wait for it."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """Kill the server (SIGKILL) and wait for it."""
        self._end(signal.SIGKILL)

    def _end(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the server and wait for it to exit."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)
        self.process = None

    def log_tail(self, lines: int = 5) -> str:
        """The last lines of the server's log."""
        log = self.folder / "redis.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        return " | ".join(text.strip().splitlines()[-lines:])
