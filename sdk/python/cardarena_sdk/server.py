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
import traceback
from collections.abc import Callable
from types import FrameType
from typing import Any, NoReturn, Protocol

from arena.protocol import PROTOCOL_VERSION
from arena.protocol.schema import agent as pb
from cardarena_sdk.address import (
    AddressError,
    open_socket,
    parse_address,
    remove_socket,
    resolve_address,
)
from cardarena_sdk.answer import (
    action_id_of,
    debug_bytes,
    decision_bytes,
)
from cardarena_sdk.bot import Bot
from cardarena_sdk.decode import ObservationDecoder
from cardarena_sdk.match import MatchInfo
from cardarena_sdk.native_server import NativeServer, native_serving
from cardarena_sdk.request import Request
from cardarena_sdk.status import Code

BotSource = type[Bot] | Callable[[], Any] | Bot
"""A Bot subclass or factory (called once per match), or one Bot instance shared by all."""

MAX_DETAILS = 1000
"""The longest status text sent to the arena when a bot raises."""

DEFAULT_GRACE_S = 1.0
"""Seconds open streams get to finish when the server stops."""


def log(message: str) -> None:
    """One line on stderr, where the arena keeps a bot's log."""
    print(f"cardarena_sdk: {message}", file=sys.stderr, flush=True)


def bot_factory(source: BotSource) -> Callable[[], Any]:
    """A callable giving the Bot of each match; an instance is shared by every match."""
    if isinstance(source, Bot) or (not callable(source) and hasattr(source, "act")):
        return lambda: source
    if callable(source):
        return source
    raise TypeError(f"serve needs a Bot subclass, a factory or a Bot instance, "
                    f"not {type(source).__name__}")


def source_name(source: BotSource) -> str:
    """The bot's name as its class or instance gives it."""
    return str(getattr(source, "name", None) or getattr(source, "__name__", "bot"))


def _details(name: str, exc: BaseException, where: str) -> str:
    """The status text naming the bot, the exception type and where it was raised."""
    text = f"bot {name} raised {type(exc).__name__} in {where}: {exc}"
    return text if len(text) <= MAX_DETAILS else text[:MAX_DETAILS - 3] + "..."


class Aborter(Protocol):
    """What a stream ends through: ``abort`` raises, the call then ends with that status."""

    def abort(self, code: Code, details: str) -> NoReturn:
        """End the stream with ``code`` and ``details``."""


class StreamAborted(Exception):
    """A stream the bot's side ends with a status (``Play`` turns it into the call's)."""

    def __init__(self, code: Code, details: str) -> None:
        """Keep the status."""
        super().__init__(details)
        self.code = code
        self.details = details


class _RaiseAborted:
    """The ``Aborter`` of a served stream: raises ``StreamAborted``."""

    def abort(self, code: Code, details: str) -> NoReturn:
        """Raise the status for ``Play`` to end the call with."""
        raise StreamAborted(code, details)


RAISE_ABORTED = _RaiseAborted()
"""The ``Aborter`` every served stream ends through."""


class _Stream:
    """The state of one Play stream: its match and its Bot."""

    def __init__(self, factory: Callable[[], Any], name: str, context: Aborter) -> None:
        """Start with no match."""
        self.factory = factory
        self.name = name
        self.context = context
        self.match: MatchInfo | None = None
        self.bot: Any = None
        self.decoder = ObservationDecoder()

    def fail(self, code: Code, details: str) -> NoReturn:
        """End the stream with a status (``abort`` raises)."""
        self.context.abort(code, details)

    def crash(self, exc: BaseException, where: str) -> NoReturn:
        """Log the traceback and end the stream with INTERNAL naming the exception."""
        details = _details(self.name, exc, where)
        log(details)
        traceback.print_exception(exc, file=sys.stderr)
        sys.stderr.flush()
        self.fail(Code.INTERNAL, details)

    def start(self, message: pb.MatchStart) -> pb.PlayResponse:
        """Make the Bot, tell it the match, and answer Ready."""
        if self.match is not None:
            self.fail(Code.FAILED_PRECONDITION,
                      "a second MatchStart on the same stream: one stream plays one match")
        try:
            match = MatchInfo(message)
        except ValueError as exc:
            self.fail(Code.INVALID_ARGUMENT, f"malformed MatchStart: {exc}")
        if message.protocol_version != PROTOCOL_VERSION:
            log(f"the arena speaks {message.protocol_version!r}, this bot {PROTOCOL_VERSION!r}; "
                "answering Ready with the bot's version")
        try:
            self.bot = self.factory()
        except Exception as exc:
            self.crash(exc, "__init__")
        self.name = str(getattr(self.bot, "name", self.name))
        self.match = match
        try:
            self.bot.match = match
            self.bot.on_match_start(match)
        except Exception as exc:
            self.crash(exc, "on_match_start")
        return pb.PlayResponse(ready=pb.Ready(
            protocol_version=PROTOCOL_VERSION, bot_name=self.name,
            bot_version=str(getattr(self.bot, "version", "")), keeps_stream=True))

    def decide(self, message: pb.DecisionRequest) -> bytes:
        """Ask the Bot for a decision and answer with the bytes of its PlayResponse."""
        if self.match is None:
            self.fail(Code.FAILED_PRECONDITION, "a DecisionRequest before MatchStart")
        request = Request(message, self.match, self.decoder)
        try:
            answer = self.bot.act(request)
        except Exception as exc:
            self.crash(exc, "act")
        try:
            action_id = answer if type(answer) is int else action_id_of(answer)
            debug = request.debug
            response = decision_bytes(message.request_id, action_id,
                                      b"" if type(debug) is str and not debug
                                      else debug_bytes(debug))
        except (TypeError, ValueError) as exc:
            problem = TypeError(f"act returned {answer!r}, not a wire action id "
                                f"(an int of request.legal_ids): {exc}")
            self.crash(problem, "act")
        if not request.is_legal(action_id):
            log(f"bot {self.name} answered action {action_id}, which is not legal in request "
                f"{message.request_id}; legal ids: {request.legal_ids}")
        return response

    def end(self, message: pb.MatchEnd) -> None:
        """Tell the Bot the result."""
        if self.bot is None:
            return
        try:
            self.bot.on_match_end(message)
        except Exception as exc:
            self.crash(exc, "on_match_end")


class Session:
    """One Play stream's matches in turn, each with a fresh Bot: every message answered by the
    stream's current match (a ``StreamAborted`` ends the stream)."""

    def __init__(self, factory: Callable[[], Any], name: str) -> None:
        """No match yet."""
        self.factory = factory
        self.name = name
        self.stream = _Stream(factory, name, RAISE_ABORTED)

    def handle(self, message: pb.PlayRequest) -> pb.PlayResponse | bytes | None:
        """Ready for MatchStart, a Decision's bytes for a DecisionRequest, None for MatchEnd
        (the next match on the stream gets a fresh Bot)."""
        which = message.WhichOneof("message")
        if which == "decision_request":
            return self.stream.decide(message.decision_request)
        if which == "match_start":
            return self.stream.start(message.match_start)
        if which == "match_end":
            self.stream.end(message.match_end)
            self.stream = _Stream(self.factory, self.name, RAISE_ABORTED)
            return None
        self.stream.fail(Code.INVALID_ARGUMENT, "an empty PlayRequest")


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
