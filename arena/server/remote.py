"""The client side of ArenaService, for the ``arena remote`` commands."""

from __future__ import annotations

import io
import os
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc

from arena.protocol.schema import platform as pb
from arena.protocol.schema import platform_grpc as pb_grpc
from arena.server.tls import TlsError, client_credentials

MAX_MESSAGE_BYTES = 22 * 2**20
"""The largest message sent or received (the service's archive cap plus room)."""

SKIPPED = frozenset({"__pycache__", ".git", ".venv", "node_modules", "target", "build"})
"""Folders left out when a bot folder is packed for upload."""

LOG_METADATA = "arena-log-bin"
"""The trailing metadata key of a refusal's log (a failed build's last lines)."""

TOKEN_ENV = "ARENA_TOKEN"
"""The environment variable read when no ``--token`` is given."""

CALL_TIMEOUT_S = 900.0
"""How long a unary call may take (a SubmitBot builds the image)."""


class RemoteError(Exception):
    """A call the service refused, or a service that cannot be reached: one line."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None,
                 log: str = "") -> None:
        """Keep the line, the status code and the service's log of the refusal (if any)."""
        super().__init__(message)
        self.code = code
        self.log = log


TLS_CA_ENV = "ARENA_TLS_CA"
"""The environment variable read when no ``--tls-ca`` is given."""

TLS_PREFIXES = ("grpcs://", "https://")
"""``--server`` prefixes that ask for TLS (trusting the system's roots without a CA file)."""


def target_of(server: str) -> str:
    """The gRPC target of a ``--server`` value: ``host:port``, ``grpc://host:port``,
    ``grpcs://host:port`` or ``unix:PATH``."""
    server = server.strip()
    if not server:
        raise RemoteError("no server given: pass --server HOST:PORT")
    for prefix in ("grpc://", "http://", *TLS_PREFIXES):
        if server.startswith(prefix):
            return server[len(prefix):].rstrip("/")
    return server


def pack_folder(folder: Path) -> bytes:
    """A bot folder as a tar.gz archive (caches and VCS folders left out)."""
    if not (folder / "Dockerfile").is_file():
        raise RemoteError(f"{folder} has no Dockerfile: a bot for the service is built from one")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(name for name in dirs if name not in SKIPPED)
            for name in sorted(files):
                path = Path(root) / name
                if path.suffix == ".pyc" or path.is_symlink() or not path.is_file():
                    continue
                archive.add(path, arcname=path.relative_to(folder).as_posix())
    return buffer.getvalue()


def archive_bytes(path: Path) -> bytes:
    """The bytes to upload for a folder (packed) or an archive file (as is)."""
    if path.is_dir():
        return pack_folder(path)
    try:
        return path.read_bytes()
    except OSError as error:
        raise RemoteError(f"cannot read {path}: {error.strerror or error}") from None


class RemoteArena:
    """A connection to an ArenaService, every call sending the token."""

    def __init__(self, server: str, token: str | None = None,
                 tls_ca: Path | None = None) -> None:
        """Open a channel to ``server`` (calls are made lazily): over TLS trusting the CA
        certificate ``tls_ca``, or the system's roots for a ``grpcs://`` server."""
        options = [("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
                   ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
        target = target_of(server)
        if tls_ca is None and not server.strip().startswith(TLS_PREFIXES):
            self.channel = grpc.insecure_channel(target, options=options)
        else:
            try:
                credentials = client_credentials(tls_ca)
            except TlsError as error:
                raise RemoteError(str(error)) from None
            self.channel = grpc.secure_channel(target, credentials, options=options)
        self.stub = pb_grpc.ArenaServiceStub(self.channel)
        self.token = token

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()

    def __enter__(self) -> RemoteArena:
        """The connection."""
        return self

    def __exit__(self, *_: object) -> None:
        """Close the connection."""
        self.close()

    def metadata(self) -> list[tuple[str, str]]:
        """The call metadata: the bearer token, when there is one."""
        return [("authorization", f"Bearer {self.token}")] if self.token else []

    def call(self, method: str, request: Any) -> Any:
        """Make a unary call; ``RemoteError`` with the service's message when refused."""
        try:
            return getattr(self.stub, method)(request, metadata=self.metadata(),
                                              timeout=CALL_TIMEOUT_S)
        except grpc.RpcError as error:
            raise remote_error(error) from None

    def watch(self, match_id: str, as_bot: str = "") -> Iterator[pb.WatchMatchResponse]:
        """The updates of a match, as the service streams them."""
        try:
            yield from self.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id,
                                                                 as_bot=as_bot),
                                            metadata=self.metadata())
        except grpc.RpcError as error:
            raise remote_error(error) from None


def remote_error(error: grpc.RpcError) -> RemoteError:
    """The one-line error of a failed call."""
    code = error.code() if hasattr(error, "code") else None
    details = error.details() if hasattr(error, "details") else str(error)
    if code == grpc.StatusCode.UNAVAILABLE:
        return RemoteError(f"the arena service cannot be reached: {details}", code)
    name = code.name if code is not None else "ERROR"
    trailers = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    log = b"".join(value for key, value in trailers or () if key == LOG_METADATA
                   and isinstance(value, bytes))
    return RemoteError(f"{details} ({name})", code, log.decode("utf-8", "replace"))
