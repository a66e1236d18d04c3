"""Starting and stopping the ArenaService gRPC server."""

from __future__ import annotations

from concurrent import futures
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.protocol.schema import platform_grpc as pb_grpc
from arena.server.api.accounts import AccountPolicy
from arena.server.api.bots import Uploads
from arena.server.api.limits import LimitGuard, LimitsInterceptor
from arena.server.api.service import ArenaServicer
from arena.server.limit_settings import ServiceLimits
from arena.server.tls import TlsFiles
from arena.store import Store

DEFAULT_ARCHIVE_BYTES = 20 * 2**20
"""The archive cap when no upload limits are given (the uploads' default)."""

MESSAGE_MARGIN = 2**20
"""Room for the rest of a SubmitBot request beside the archive."""

THREADS = 32
"""Calls served at once (each watcher holds one while it streams, up to ``MAX_WATCHERS``)."""


@dataclass
class ApiServer:
    """A running gRPC server: its address and port, and its servicer."""

    server: grpc.Server
    servicer: ArenaServicer
    address: str
    port: int

    def stop(self, grace_s: float = 2.0) -> None:
        """Stop serving: watchers end, calls in flight get ``grace_s`` to finish."""
        self.servicer.stopping.set()
        self.server.stop(grace_s).wait()


def start_api(store: Store, store_url: str, data_dir: Path, address: str = "127.0.0.1:50051",
              *, workers: int = 2, broker: str | None = None,
              uploads: Uploads | None = None, limits: ServiceLimits | None = None,
              tls: TlsFiles | None = None, accounts: AccountPolicy | None = None,
              rate_humans: bool = False) -> ApiServer:
    """Serve ArenaService at ``address`` (``host:port``, port 0 picks one, or ``unix:PATH``),
    holding calls to ``limits`` (None: none) and over TLS with ``tls`` (None: plaintext);
    people's tables count on the leaderboards only with ``rate_humans``.

    Raises ``OSError`` when the address cannot be bound.
    """
    upload_limits = uploads.limits if uploads is not None else None
    archive_bytes = getattr(upload_limits, "archive_bytes", DEFAULT_ARCHIVE_BYTES)
    size = archive_bytes + MESSAGE_MARGIN
    servicer = ArenaServicer(store, store_url, data_dir, workers=workers, broker=broker,
                             uploads=uploads, accounts=accounts, rate_humans=rate_humans)
    interceptors = [] if limits is None else [
        LimitsInterceptor(LimitGuard(store, limits, servicer.leagues.running))]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=THREADS,
                                                    thread_name_prefix="arena-api"),
                         interceptors=interceptors,
                         options=[("grpc.max_receive_message_length", size),
                                  ("grpc.max_send_message_length", size),
                                  ("grpc.so_reuseport", 0)])
    pb_grpc.add_ArenaServiceServicer_to_server(servicer, server)
    try:
        port = server.add_insecure_port(address) if tls is None else \
            server.add_secure_port(address, tls.server_credentials())
    except RuntimeError as error:
        raise OSError(f"cannot listen on {address}: {error}") from None
    if port == 0 and not address.startswith("unix:"):
        raise OSError(f"cannot listen on {address}: the address is taken or invalid")
    server.start()
    return ApiServer(server=server, servicer=servicer, address=address, port=port)
