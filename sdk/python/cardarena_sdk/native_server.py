"""A bot's gRPC server on the compiled transport (``cardarena_wire``, the arena's ``wire/``
crate), used when it is installed and ``CARDARENA_TRANSPORT`` is not ``grpc``.

HTTP/2 runs on a Tokio thread that never takes the GIL; the server's own thread hears of each
stream opened, each request and each close through one eventfd, however many came since it
last looked, and answers each request at once with the stream's ``Session`` (the same code as
``grpc.aio``'s server runs: ``cardarena_sdk.session``); neither grpc nor asyncio is imported.
A ``StreamAborted`` ends the stream with its status; a request that does not parse ends it with
INTERNAL, as gRPC's deserializer does; the arena's half-close ends it with OK. What a bot sees
is the same on either server; the compiled one costs a quick bot about a third of grpc.aio's
CPU per decision, and its start skips the imports of grpc and asyncio.
"""

from __future__ import annotations

import os
import select
import sys
import threading
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

from google.protobuf.message import DecodeError

from arena.protocol.schema import agent as pb
from cardarena_sdk.address import Address, AddressError
from cardarena_sdk.answer import serialize_response
from cardarena_sdk.status import Code

try:
    import cardarena_wire as _wire
except ImportError:  # not installed: grpc.aio's server serves
    _wire_module: ModuleType | None = None
else:
    _wire_module = _wire

TRANSPORT_ENV = "CARDARENA_TRANSPORT"
"""The environment variable that chooses the transport (``grpc`` for grpc.aio's server)."""

DESERIALIZE_ERROR = "Exception deserializing request!"
"""The status text of a request that does not parse (gRPC's own words)."""


def native_serving() -> bool:
    """True when bots serve on the compiled transport here."""
    choice = os.environ.get(TRANSPORT_ENV, "auto").strip().lower()
    return _wire_module is not None and choice != "grpc"


class NativeServer:
    """A started server on the serving loop, with the session of each open stream."""

    def __init__(self, session: Callable[[], Any], log: Callable[[str], None]) -> None:
        """Serve each stream with a session from ``session``; ``log`` a line on stderr."""
        assert _wire_module is not None
        self._module = _wire_module
        self._server: Any = _wire_module.Server()
        self._session = session
        self._log = log
        self._sessions: dict[int, Any] = {}
        self._wake_read, self._wake_write = os.pipe()
        self._closing = False
        self._idle = threading.Condition()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def listen(self, address: Address) -> int:
        """Listen at ``address`` and serve on a thread of the server's; the TCP port bound (0
        for a Unix socket)."""
        try:
            if address.unix_path is not None:
                self._server.listen_unix(address.unix_path)
                port = 0
            else:
                port = self._server.listen_tcp(address.target)
        except OSError as exc:
            raise AddressError(str(exc)) from None
        self._thread = threading.Thread(target=self._serve, name="cardarena-sdk-server",
                                        daemon=True)
        self._thread.start()
        return int(port)

    def _serve(self) -> None:
        """Handle the events as they come, until the server is closed."""
        events = self._server.fileno()
        while not self._closing:
            readable, _, _ = select.select([events, self._wake_read], [], [])
            if self._wake_read in readable:
                os.read(self._wake_read, 64)
            self._on_events()
            if not self._sessions:
                with self._idle:
                    self._idle.notify_all()

    def _on_events(self) -> None:
        """Open, answer and close the streams as their events say."""
        module, server, sessions = self._module, self._server, self._sessions
        for kind, ident, value, _, _ in server.take_events():
            if kind == module.REQUEST:
                self._answer(ident, value)
            elif kind == module.OPENED:
                sessions[ident] = self._session()
            elif kind == module.CLOSED and sessions.pop(ident, None) is not None and value:
                server.finish(ident, Code.OK, "")

    def _end(self, ident: int, code: Code, details: str) -> None:
        """End a stream with a status."""
        self._sessions.pop(ident, None)
        self._server.finish(ident, int(code), details)

    def _answer(self, ident: int, data: bytes) -> None:
        """Answer one request of a stream (or end the stream)."""
        session = self._sessions.get(ident)
        if session is None:
            return
        try:
            message = pb.PlayRequest.FromString(data)
        except DecodeError:
            self._end(ident, Code.INTERNAL, DESERIALIZE_ERROR)
            return
        try:
            answer = session.handle(message)
        except Exception as exc:  # StreamAborted ends the stream as it says; anything else
            code = getattr(exc, "code", None)
            if isinstance(code, Code):
                self._end(ident, code, str(getattr(exc, "details", exc)))
                return
            self._log(f"unexpected error serving a stream: {exc!r}")
            traceback.print_exception(exc, file=sys.stderr)
            self._end(ident, Code.UNKNOWN, f"Unexpected error in the bot's server: "
                                                       f"{type(exc).__name__}")
            return
        if answer is not None:
            self._server.send(ident, serialize_response(answer))

    def stop(self, grace: float | None) -> None:
        """Stop listening, give open streams ``grace`` seconds to end, then close them all."""
        self._server.stop_listening()
        if grace:
            with self._idle:
                self._idle.wait_for(lambda: not self._sessions, grace)
        self._closing = True
        os.write(self._wake_write, b"x")
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._server.close()
        for end in (self._wake_read, self._wake_write):
            os.close(end)
        self._stopped.set()

    def wait(self) -> None:
        """Block until the server is stopped."""
        self._stopped.wait()
