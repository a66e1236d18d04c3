"""The Agent interface: what the match runner asks of every player, in-process or remote.

Lifecycle: ``launch`` once, then for each deal ``open`` (the MatchStart of that deal),
``decide`` for each of the seat's decisions and ``close`` (MatchEnd); finally ``shutdown``,
always, even after a failure. ``launch``, ``open`` and ``decide`` raise ``AgentFailure`` when
the agent cannot play on. The runner makes an agent per rotation of a duplicate set, so one
agent plays one deal of a set; a bot instance never opens a deal it has been shown before
(``arena.agents.ledger``).

The runner and its agents speak in engine terms only: a turn gives the deal's state, and a
reply gives an engine action (or the fault the answer was). An agent that talks to a bot owns
that conversation's wire form (``arena.agents.conversation``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from arena.games import Game, Observation, State
from arena.reasons import Reason


class TurnState(Protocol):
    """What a turn reads of a match (a ``State`` is one): a seat's observation and the legal
    actions of the seat to act."""

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now."""

    def legal_actions(self) -> list[int]:
        """The legal actions of the seat to act, sorted."""


@dataclass(frozen=True)
class DealSetup:
    """One deal as one seat's agent is told of it: the game, the seat, the seed, the clock, and
    the deal's state, which goes on as the deal is played (an agent reads it, never changes it)."""

    game: Game
    seat: int
    seed: int
    match_id: str
    decision_ms: int
    bank_ms: int
    state: State


class Turn:
    """One decision asked of an agent: its request id, the seat, the deal's state now and the
    seat's time left."""

    __slots__ = ("_observation", "bank_ms", "decision_ms", "request_id", "seat", "state")

    def __init__(self, request_id: int, seat: int, state: TurnState, decision_ms: int = 0,
                 bank_ms: int = 0) -> None:
        """Decision ``request_id`` of ``seat`` in ``state``, with ``decision_ms`` for this
        decision and ``bank_ms`` left in the seat's bank."""
        self.request_id = request_id
        self.seat = seat
        self.state = state
        self.decision_ms = decision_ms
        self.bank_ms = bank_ms
        self._observation: Observation | None = None

    def observation(self) -> Observation:
        """The engine observation of the seat (built once)."""
        if self._observation is None:
            self._observation = self.state.observation(self.seat)
        return self._observation


class Reply(NamedTuple):
    """An agent's answer to a turn, in engine terms (a named tuple: one is made for every
    decision); the runner plays it, or counts the fault it is."""

    action: int
    """The engine action to play: a legal action of the turn unless ``fault`` is set."""
    took_us: int | None = None
    """The time the bot had the request, as its agent measured it (from writing the request to
    when the answer could first be read); None: the runner times the call itself."""
    fault: str = ""
    """Empty for a decision of the turn to play as is; else the kind of fault the answer is
    (``malformed``, ``stale``, ``unset`` or ``illegal``), and ``action`` means nothing."""
    detail: str = ""
    """What was wrong with the answer, for the match log."""
    debug: str = ""
    """The debug text that came with the answer (the runner caps it)."""


@dataclass(frozen=True)
class DealEnd:
    """The end of a deal as an agent is told of it (one, shared by every seat of the deal)."""

    state: State
    reasons: tuple[Reason, ...]


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
    keeps_stream: bool = False
    """The bot takes its next match on the same stream (``Ready.keeps_stream``)."""

    def to_dict(self) -> dict[str, str]:
        """A JSON-ready form (what the bot said of itself)."""
        return {"protocol_version": self.protocol_version, "bot_name": self.bot_name,
                "bot_version": self.bot_version}


class Agent(ABC):
    """A player of deals: a reference policy in this process or a bot reached over gRPC."""

    remote: bool = False
    """True when the agent talks to a bot (a process or a container) over the wire."""

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
        """The answer to one turn, or None when none came within ``timeout_s`` seconds."""

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
