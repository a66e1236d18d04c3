"""The gRPC server of a bot: one Bot instance per match, each match on a Play stream (the
next match of the same arena may come on the same stream after MatchEnd).

The server is the compiled transport's when it is installed (``native_server``: its events
read by one thread of the server's), else ``grpc.aio``'s (``grpc_server``: one event loop in a
thread of its own serves every such ``BotServer`` of the process). ``Bot.act`` runs on that
thread, so a process that plays several matches at once (``matches_at_once``) takes their
decisions one after another: handing each message to a thread of its own cost a bot more CPU
than the decision of a quick bot, and a bot that thinks for long should play one match per
process, the default.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Any

from cardarena_sdk.address import (
    AddressError,
    open_socket,
    parse_address,
    remove_socket,
    resolve_address,
)
from cardarena_sdk.native_server import NativeServer, native_serving
from cardarena_sdk.session import (
    BotSource,
    Session,
    StreamAborted,
    _Stream,
    bot_factory,
    log,
    source_name,
)

__all__ = ["DEFAULT_GRACE_S", "BotServer", "BotSource", "Session", "StreamAborted", "_Stream",
           "serve"]

DEFAULT_GRACE_S = 1.0
"""Seconds open streams get to finish when the server stops."""


class BotServer:
    """A started-on-demand gRPC server for one bot at one address."""

    def __init__(self, source: BotSource, address: str) -> None:
        """Check the address; nothing listens until ``start``."""
        self.address = parse_address(address)
        self.name = source_name(source)
        self.factory = bot_factory(source)
        self.bound: str | None = None
        self._server: Any = None
        """The running server: ``NativeServer`` or ``GrpcServer``."""

    def start(self) -> str:
        """Listen and serve, on a thread of the server's; return the address bound."""
        self._server = self._make_server()
        port = self._server.listen(self.address)
        if self.address.unix_path is not None:
            open_socket(self.address.unix_path)
        if self.address.is_unix:
            self.bound = self.address.target
        else:
            host = self.address.target.rpartition(":")[0]
            self.bound = f"{host}:{port}"
        return self.bound

    def session(self) -> Session:
        """The session of a new stream."""
        return Session(self.factory, self.name)

    def _make_server(self) -> Any:
        """The compiled transport's server when it is installed (``native_server``), else
        grpc.aio's (``grpc_server``, which imports grpc and asyncio only then)."""
        if native_serving():
            return NativeServer(self.session, log)
        from cardarena_sdk.grpc_server import GrpcServer

        return GrpcServer(self.session)

    def stop(self, grace: float = DEFAULT_GRACE_S) -> None:
        """Stop serving (open streams get ``grace`` seconds) and remove the socket file."""
        server, self._server = self._server, None
        if server is not None:
            server.stop(grace)
        if self.address.unix_path is not None:
            remove_socket(self.address.unix_path)

    def wait(self) -> None:
        """Block until the server stops."""
        server = self._server
        if server is not None:
            server.wait()

    def __enter__(self) -> BotServer:
        """Start serving."""
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stop serving."""
        self.stop()


def _on_stop_signals(stopping: threading.Event) -> dict[int, Any]:
    """Set ``stopping`` on SIGTERM and SIGINT; return the previous handlers (none off-main)."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def on_signal(signum: int, frame: FrameType | None) -> None:
        """Ask ``serve`` to stop."""
        stopping.set()

    return {signum: signal.signal(signum, on_signal)
            for signum in (signal.SIGTERM, signal.SIGINT)}


def serve(bot: BotSource, address: str | None = None, *,
          grace: float = DEFAULT_GRACE_S) -> None:
    """Serve a bot until SIGTERM or SIGINT, then stop cleanly; a bad address exits with 2.

    Signals are handled when called from the main thread; elsewhere it serves until the
    server is stopped.
    """
    stopping = threading.Event()
    previous = _on_stop_signals(stopping)
    try:
        try:
            server = BotServer(bot, resolve_address(address))
            bound = server.start()
        except AddressError as exc:
            print(f"error: {exc}", file=sys.stderr, flush=True)
            raise SystemExit(2) from None
        log(f"bot {server.name} {getattr(bot, 'version', '')} listening on {bound}")
        try:
            if previous:
                stopping.wait()
            else:
                server.wait()
        finally:
            server.stop(grace)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    log(f"bot {server.name} stopped")
