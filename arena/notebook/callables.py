"""Python callables as players: ``f(request) -> action id``, asked in this process.

A callable gets what a bot gets: the SDK's ``Request`` (``cardarena_sdk.Request``: the seat's
observation, ``legal_ids``, ``legal_actions`` and the card helpers) built from the very
DecisionRequest a bot would be sent, and answers as ``Bot.act`` does, with a wire id from
``request.legal_ids``. An SDK ``Bot`` (a subclass, made afresh for each deal, or an instance)
plays the same way through its ``act``. Its answers go through the fault policy like a bot's:
an id that is not legal, or that is no id at all, is a strike and a random legal action is
played instead; an exception is a crash, and the seat forfeits (its traceback is kept as the
seat's captured output). A callable is not held to the clock: it runs in this process.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.agents.base import Agent, DealSetup, Reply, Turn
from arena.agents.conversation import Conversation, judged_reply
from arena.agents.errors import crash
from arena.agents.output import OUTPUT_CAP
from arena.games import Game
from arena.protocol import Answer
from arena.protocol.schema import agent as pb

PlayerFunction = Callable[[Any], Any]
"""A callable player: ``f(request) -> wire action id``."""


class SdkMissing(ImportError):
    """The SDK (``cardarena_sdk``), which builds a callable's requests, is not installed."""


def _sdk() -> Any:
    """The SDK package, or ``SdkMissing`` saying how to install it."""
    try:
        import cardarena_sdk
        import cardarena_sdk.decode
    except ImportError:
        raise SdkMissing("a Python callable player is given the SDK's Request: install the "
                         "SDK (pip install -e sdk/python)") from None
    return cardarena_sdk


def callable_name(player: object) -> str:
    """The name a callable player is shown by: its function's or class's name."""
    name = getattr(player, "__name__", None) or type(player).__name__
    return f"{name} (callable)"


class CallableAgent(Agent):
    """Plays a seat by calling a Python function, or an SDK Bot's ``act``, in this process."""

    timed = False

    def __init__(self, player: object, label: str) -> None:
        """Remember the player; an SDK Bot class is made into an instance for each deal."""
        self.player = player
        self._label = label
        self._conversation: Conversation | None = None
        self._match: Any = None
        self._decoder: Any = None
        self._act: PlayerFunction | None = None
        self._output: list[str] = [""]

    @property
    def label(self) -> str:
        """The callable's name."""
        return self._label

    def describe(self) -> dict[str, Any]:
        """``{"kind": "callable", "name": ...}``."""
        return {"kind": "callable", "name": self._label}

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Read the deal's MatchStart as a bot would; a Bot is made and told of the match (its
        exception is a failed start)."""
        sdk = _sdk()
        self._conversation = Conversation(setup)
        start = pb.PlayRequest.FromString(self._conversation.start_bytes()).match_start
        self._match = sdk.MatchInfo(start)
        self._decoder = sdk.decode.ObservationDecoder()
        player: Any = self.player
        try:
            if isinstance(player, type):
                player = player()
            if hasattr(player, "act") and not _is_function(player):
                player.match = self._match
                player.on_match_start(self._match)
                self._act = player.act
            else:
                self._act = player
        except Exception as error:
            self._keep_traceback(error)
            raise _failed_start(self._label, error) from None

    async def decide(self, turn: Turn, timeout_s: float) -> Reply:
        """Call the player with the turn's Request; judge its answer as a bot's."""
        if self._conversation is None or self._act is None:
            raise RuntimeError(f"callable player {self._label!r} asked to decide before open")
        sdk = _sdk()
        message = pb.PlayRequest.FromString(
            self._conversation.request_bytes(turn)).decision_request
        request = sdk.Request(message, self._match, self._decoder)
        try:
            answer = self._act(request)
        except Exception as error:
            self._keep_traceback(error)
            raise crash(f"{self._label} raised {type(error).__name__}: {error}") from None
        debug = str(request.debug or "")
        if isinstance(answer, bool) or not isinstance(answer, int):
            return Reply(-1, None, "malformed", f"returned {_shown(answer)}, not a wire action "
                                                "id (an int of request.legal_ids)", debug)
        return judged_reply(turn, Answer(turn.request_id, answer, debug))

    def mark_output(self) -> None:
        """Start a new window of kept tracebacks (one per deal)."""
        self._output.append("")

    def output_windows(self) -> list[str]:
        """The tracebacks kept, per deal."""
        return [text for text in self._output if text] or [""]

    def _keep_traceback(self, error: BaseException) -> None:
        """Keep an exception's traceback as the seat's captured output (capped)."""
        frames = error.__traceback__.tb_next if error.__traceback__ else None  # the player's
        text = "".join(traceback.format_exception(type(error), error, frames))
        self._output[-1] = (self._output[-1] + text)[-OUTPUT_CAP:]


def _is_function(player: object) -> bool:
    """True for a plain function, method or lambda (which may have an ``act`` attribute)."""
    return callable(player) and not hasattr(type(player), "act")


def _failed_start(label: str, error: Exception) -> Exception:
    """The failure of a Bot that raised while it was made or told of the match."""
    from arena.agents.errors import init_error

    return init_error(f"{label} raised {type(error).__name__} at the start: {error}")


def _shown(value: object, limit: int = 80) -> str:
    """A value's repr, cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


@dataclass(frozen=True)
class CallableSeat:
    """A seat played by a Python callable (or an SDK Bot) in this process."""

    player: object
    name: str

    @property
    def label(self) -> str:
        """The callable's name."""
        return self.name

    def check(self, game: Game) -> None:
        """Any game: the callable answers what it is asked (the SDK must be installed)."""
        _sdk()

    def create_agent(self) -> CallableAgent:
        """An agent calling the player."""
        return CallableAgent(self.player, self.name)
