"""A bot's gRPC server on the compiled transport (``cardarena_wire``, the arena's ``wire/``
crate), used when it is installed and ``CARDARENA_TRANSPORT`` is not ``grpc``.

HTTP/2 runs on a Tokio thread that never takes the GIL; the serving loop hears of each stream
opened, each request and each close through one eventfd, however many came since it last
looked, and answers each request at once with the stream's ``Session`` (the same code as
``grpc.aio``'s server runs: ``cardarena_sdk.server``). A ``StreamAborted`` ends the stream with
its status; a request that does not parse ends it with INTERNAL, as gRPC's deserializer does;
the arena's half-close ends it with OK. What a bot sees is the same on either server; the
compiled one costs a quick bot about half the CPU per decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
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
        self._stopped: asyncio.Future[None] | None = None
        self._drained: asyncio.Future[None] | None = None

    async def listen(self, address: Address) -> int:
        """Listen at ``address`` and serve on the running loop; the TCP port bound (0 for a
        Unix socket)."""
        loop = asyncio.get_running_loop()
        self._stopped = loop.create_future()
        try:
            if address.unix_path is not None:
                self._server.listen_unix(address.unix_path)
                port = 0
            else:
                port = self._server.listen_tcp(address.target)
        except OSError as exc:
            raise AddressError(str(exc)) from None
        loop.add_reader(self._server.fileno(), self._on_events)
        return int(port)

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
        if not sessions and self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

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

    async def stop(self, grace: float | None) -> None:
        """Stop listening, give open streams ``grace`` seconds to end, then close them all."""
        loop = asyncio.get_running_loop()
        self._server.stop_listening()
        if grace and self._sessions:
            self._drained = loop.create_future()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._drained), grace)
        loop.remove_reader(self._server.fileno())
        self._server.close()
        if self._stopped is not None and not self._stopped.done():
            self._stopped.set_result(None)

    async def wait_for_termination(self) -> None:
        """Wait until the server is stopped."""
        if self._stopped is not None:
            await asyncio.shield(self._stopped)
