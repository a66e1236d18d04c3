"""A Docker daemon that fails on cue: an HTTP proxy on a Unix socket in front of the real
daemon's socket, for ``DOCKER_HOST=unix://...``.

Every request is forwarded on a connection of its own (``Connection: close``), except those a
``Fault`` picks: the ``nth`` bot container create (a create whose labels name a bot) or the
``nth`` start of a bot container is answered ``500`` with a JSON message, either without
reaching the daemon (``refuse``) or after the daemon did it (``lose``: the answer is lost on
the way back, as when a connection breaks). ``every`` fails every such call from the ``nth``.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from arena.sandbox import labels

UPSTREAM = "/var/run/docker.sock"

CREATE = re.compile(r"^(/v[\d.]+)?/containers/create$")
START = re.compile(r"^(/v[\d.]+)?/containers/(?P<id>[^/]+)/start$")
CREATED_ID = re.compile(rb'"Id"\s*:\s*"(?P<id>[0-9a-f]{64})"')

INJECTED = "injected daemon failure"


@dataclass
class Fault:
    """Which bot call fails and how."""

    call: str
    """``create`` or ``start``."""
    nth: int = 1
    mode: str = "refuse"
    """``refuse`` (the daemon never sees it) or ``lose`` (done, but answered 500)."""
    every: bool = False


@dataclass
class Call:
    """One bot container call the proxy saw."""

    call: str
    name: str
    failed: bool


@dataclass
class FaultProxy:
    """The proxy; ``url`` goes in ``DOCKER_HOST``."""

    folder: Path
    fault: Fault
    upstream: str = UPSTREAM
    calls: list[Call] = field(default_factory=list)
    _bot_ids: dict[str, str] = field(default_factory=dict)
    _counts: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: socket.socket | None = None

    @property
    def path(self) -> Path:
        """The proxy's socket."""
        return self.folder / "docker.sock"

    @property
    def url(self) -> str:
        """The ``DOCKER_HOST`` of the proxy."""
        return f"unix://{self.path}"

    @property
    def bot_names(self) -> list[str]:
        """The names of every bot container a create was sent for."""
        return sorted({call.name for call in self.calls if call.call == "create"})

    def start(self) -> FaultProxy:
        """Listen and serve in background threads."""
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(self.path))
        server.listen(64)
        self._server = server
        threading.Thread(target=self._accept, name="fault proxy", daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            with contextlib.suppress(OSError):
                self._server.shutdown(socket.SHUT_RDWR)
            self._server.close()
            self._server = None

    def _accept(self) -> None:
        """Serve each connection in a thread of its own."""
        server = self._server
        assert server is not None
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        """Read one request, forward it or fail it, relay the answer, close."""
        with client:
            try:
                head, body = read_request(client)
            except (OSError, ValueError):
                return
            method, target = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")[:2]
            call, name = self._classify(method, target, body)
            failing = call is not None and self._fails(call)
            if call is not None:
                with self._lock:
                    self.calls.append(Call(call, name, failing))
            if failing and self.fault.mode == "refuse":
                client.sendall(error_response())
                return
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as upstream:
                upstream.connect(self.upstream)
                upstream.sendall(close_after(head) + body)
                if failing or call == "create":
                    answer = read_all(upstream)
                    if call == "create" and not failing:
                        created = CREATED_ID.search(answer)
                        if created:
                            with self._lock:
                                self._bot_ids[created["id"].decode()] = name
                    client.sendall(error_response() if failing else answer)
                    return
                relay(upstream, client)

    def _classify(self, method: str, target: str, body: bytes) -> tuple[str | None, str]:
        """``create`` or ``start`` for a bot container's call (with its name), else None."""
        if method != "POST":
            return None, ""
        parts = urlsplit(target)
        if CREATE.match(parts.path):
            with contextlib.suppress(ValueError, AttributeError):
                if labels.BOT_NAME in (json.loads(body or b"{}").get("Labels") or {}):
                    return "create", parse_qs(parts.query).get("name", [""])[0]
            return None, ""
        started = START.match(parts.path)
        if started:
            with self._lock:
                name = next((name for key, name in self._bot_ids.items()
                             if key.startswith(started["id"]) or name == started["id"]), None)
            if name is not None:
                return "start", name
        return None, ""

    def _fails(self, call: str) -> bool:
        """Count the call; True when the fault picks it."""
        with self._lock:
            count = self._counts[call] = self._counts.get(call, 0) + 1
        if call != self.fault.call:
            return False
        return count == self.fault.nth or (self.fault.every and count >= self.fault.nth)


def read_request(client: socket.socket) -> tuple[bytes, bytes]:
    """One request's head (through the blank line) and body (Content-Length or chunked)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        if not chunk:
            raise ValueError("the connection closed before a request")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    head += b"\r\n\r\n"
    headers = {line.split(b":", 1)[0].strip().lower(): line.split(b":", 1)[1].strip()
               for line in head.split(b"\r\n")[1:] if b":" in line}
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        while not rest.endswith(b"0\r\n\r\n"):
            chunk = client.recv(65536)
            if not chunk:
                break
            rest += chunk
        return head, rest
    length = int(headers.get(b"content-length", b"0"))
    while len(rest) < length:
        chunk = client.recv(65536)
        if not chunk:
            break
        rest += chunk
    return head, rest


def close_after(head: bytes) -> bytes:
    """The request head with ``Connection: close`` in place of any connection header."""
    lines = [line for line in head.rstrip(b"\r\n").split(b"\r\n")
             if not line.lower().startswith(b"connection:")]
    return b"\r\n".join([*lines, b"Connection: close"]) + b"\r\n\r\n"


def read_all(sock: socket.socket) -> bytes:
    """Everything until the other side closes."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def relay(source: socket.socket, sink: socket.socket) -> None:
    """Copy until ``source`` closes (or ``sink`` goes away)."""
    with contextlib.suppress(OSError):
        while chunk := source.recv(65536):
            sink.sendall(chunk)


def error_response() -> bytes:
    """The daemon's 500, as the Docker API words errors."""
    body = json.dumps({"message": INJECTED}).encode()
    return (b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n"
            + body)
