"""The Agent interface: what the match runner asks of every player, in-process or remote.

Lifecycle: ``launch`` once, then for each deal ``open`` (the MatchStart of that deal),
``decide`` for each of the seat's decisions and ``close`` (MatchEnd); finally ``shutdown``,
always, even after a failure. ``launch``, ``open`` and ``decide`` raise ``AgentFailure`` when
the agent cannot play on. The runner makes an agent per rotation of a duplicate set, so one
agent plays one deal of a set; a bot instance never opens a deal it has been shown before
(``arena.agents.ledger``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from arena.games import Game, Observation, State
from arena.reasons import Reason


class ObservableState(Protocol):
    """What a turn reads of a match: a seat's observation (a ``State`` is one)."""

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now."""


@dataclass(frozen=True)
class DealSetup:
    """One deal as one seat's agent is told of it: the game, the seat, the seed and the clock."""

    game: Game
    seat: int
    seed: int
    match_id: str
    decision_ms: int
    bank_ms: int
    start_payload: Callable[[], bytes]
    """Builds the serialized PlayRequest carrying the seat's MatchStart (only remote agents
    need it)."""


class Turn:
    """One decision asked of an agent: its request id, and the seat's view in either form."""

    __slots__ = ("_observation", "_payload", "_state", "request_id", "seat")

    def __init__(self, request_id: int, seat: int, state: ObservableState,
                 payload: bytes | None = None) -> None:
        """Decision ``request_id`` of ``seat`` in ``state``; ``payload``: the serialized
        PlayRequest for a remote agent (None for in-process ones)."""
        self.request_id = request_id
        self.seat = seat
        self._state = state
        self._payload = payload
        self._observation: Observation | None = None

    def observation(self) -> Observation:
        """The engine observation of the seat (built once)."""
        if self._observation is None:
            self._observation = self._state.observation(self.seat)
        return self._observation

    def payload(self) -> bytes:
        """The serialized PlayRequest wrapping the seat's DecisionRequest."""
        if self._payload is None:
            raise RuntimeError(f"request {self.request_id} has no wire form: it was made for "
                               "an in-process agent")
        return self._payload


class Reply(NamedTuple):
    """An agent's answer to a request, as received; the runner judges it (a named tuple: one
    is made for every decision)."""

    request_id: int
    action_id: int
    debug: str = ""
    malformed: str = ""
    """Non-empty when the answer was not a Decision: what was wrong with it."""
    took_us: int | None = None
    """The time the bot had the request, as its agent measured it (from writing the request to
    when the answer could first be read); None: the runner times the call itself."""


@dataclass(frozen=True)
class DealEnd:
    """The end of a deal as an agent is told of it."""

    state: State
    reasons: tuple[Reason, ...]
    end_payload: Callable[[], bytes]
    """Builds the serialized PlayRequest carrying the MatchEnd (only remote agents need it)."""


@dataclass(frozen=True)
class AgentExit:
    """How an agent ended: the process exit (empty for in-process agents)."""

    status: int | None = None
    """The exit status; negative: killed by that signal; None: no process."""
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class ReadyInfo:
    """What a bot said of itself in Ready."""

    protocol_version: str = ""
    bot_name: str = ""
    bot_version: str = ""

    def to_dict(self) -> dict[str, str]:
        """A JSON-ready form."""
        return {"protocol_version": self.protocol_version, "bot_name": self.bot_name,
                "bot_version": self.bot_version}


class Agent(ABC):
    """A player of deals: a reference policy in this process or a bot reached over gRPC."""

    remote: bool = False
    """True when the agent needs wire messages (built before its clock starts)."""

    timed: bool = True
    """False for the arena's own reference policies, which the clock does not hold to time."""

    @property
    @abstractmethod
    def label(self) -> str:
        """A short name for displays: a policy name, or a bot's name."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for the match record."""

    async def launch(self, startup_s: float) -> None:
        """Start whatever the agent needs (a process); by default nothing."""
        return None

    @abstractmethod
    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Begin a deal for one seat; a bot must answer Ready within ``ready_s`` seconds."""

    @abstractmethod
    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """The answer to one request, or None when none came within ``timeout_s`` seconds."""

    async def close(self, end: DealEnd) -> None:
        """End the current deal (tell a bot the result); by default nothing."""
        return None

    async def shutdown(self) -> AgentExit:
        """Stop and release everything; safe to call more than once and after failures."""
        return AgentExit()

    def mark_output(self) -> None:
        """Start a new window of the agent's captured output (one per deal)."""
        return None

    def output_windows(self) -> list[str]:
        """The captured output per window, each capped; empty for in-process agents."""
        return []
