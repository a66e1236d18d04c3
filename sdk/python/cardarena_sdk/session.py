"""One Play stream's conversation with the bot, whichever server carries it: a ``Session``
answers each message with the stream's current match (``_Stream``: its Bot, MatchStart, each
DecisionRequest, MatchEnd), and a ``StreamAborted`` ends the stream with a status."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn, Protocol

from arena.protocol import PROTOCOL_VERSION
from arena.protocol.schema import agent as pb
from cardarena_sdk.answer import action_id_of, debug_bytes, decision_bytes
from cardarena_sdk.bot import Bot
from cardarena_sdk.decode import ObservationDecoder
from cardarena_sdk.match import MatchInfo
from cardarena_sdk.request import Request
from cardarena_sdk.status import Code

BotSource = type[Bot] | Callable[[], Any] | Bot
"""A Bot subclass or factory (called once per match), or one Bot instance shared by all."""

MAX_DETAILS = 1000
"""The longest status text sent to the arena when a bot raises."""


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
