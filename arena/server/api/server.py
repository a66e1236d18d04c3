"""Starting and stopping the ArenaService gRPC server."""

from __future__ import annotations

from concurrent import futures
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.protocol.schema import platform_grpc as pb_grpc
from arena.server.api.bots import Uploads
from arena.server.api.service import ArenaServicer
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
              uploads: Uploads | None = None) -> ApiServer:
    """Serve ArenaService at ``address`` (``host:port``, port 0 picks one, or ``unix:PATH``).

    Raises ``OSError`` when the address cannot be bound.
    """
    limits = uploads.limits if uploads is not None else None
    archive_bytes = getattr(limits, "archive_bytes", DEFAULT_ARCHIVE_BYTES)
    size = archive_bytes + MESSAGE_MARGIN
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=THREADS,
                                                    thread_name_prefix="arena-api"),
                         options=[("grpc.max_receive_message_length", size),
                                  ("grpc.max_send_message_length", size),
                                  ("grpc.so_reuseport", 0)])
    servicer = ArenaServicer(store, store_url, data_dir, workers=workers, broker=broker,
                             uploads=uploads)
    pb_grpc.add_ArenaServiceServicer_to_server(servicer, server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as error:
        raise OSError(f"cannot listen on {address}: {error}") from None
    if port == 0 and not address.startswith("unix:"):
        raise OSError(f"cannot listen on {address}: the address is taken or invalid")
    server.start()
    return ApiServer(server=server, servicer=servicer, address=address, port=port)
