"""A person's seat: an agent whose decisions come from a person (a web page), under the clock.

``decide`` waits on a future that ``choose`` settles with the person's action; the runner's
deadline applies as to any seat, so a person who lets the clock run out gets a TIMEOUT strike
and, at the strike limit, forfeits the deal. An action that is not legal now is refused by
``choose`` and never reaches the runner: the clock runs on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.agents.base import Agent, DealSetup, Reply, Turn
from arena.games import Game, State

HUMAN_PREFIX = "human:"
"""The bot name a person's seat is stored under: ``human:NAME``."""


class HumanAgent(Agent):
    """A seat played by a person: each decision waits for ``choose`` (or the clock)."""

    timed = True

    def __init__(self, name: str, on_change: Callable[[], None] | None = None) -> None:
        """A seat for the user ``name``; ``on_change`` is told when a turn starts or ends."""
        self.name = name
        self.on_change = on_change or (lambda: None)
        self.setup: DealSetup | None = None
        self.turn: Turn | None = None
        self.deadline: float | None = None
        """When the current turn's time (decision and bank) runs out (``time.monotonic``)."""
        self._choice: asyncio.Future[int] | None = None

    @property
    def label(self) -> str:
        """``NAME (person)``."""
        return f"{self.name} (person)"

    @property
    def state(self) -> State | None:
        """The deal's state as it goes on, once the deal is open."""
        return None if self.setup is None else self.setup.state

    def describe(self) -> dict[str, Any]:
        """``{"kind": "human", "name": ...}``."""
        return {"kind": "human", "name": self.name}

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Keep the deal (a person is always ready)."""
        self.setup = setup
        self.on_change()

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """The person's action, or None when the clock ran out first."""
        loop = asyncio.get_running_loop()
        self._choice = loop.create_future()
        self.turn = turn
        self.deadline = time.monotonic() + timeout_s
        self.on_change()
        try:
            return Reply(await asyncio.wait_for(self._choice, timeout_s))
        except TimeoutError:
            return None
        finally:
            self.turn = self.deadline = self._choice = None
            self.on_change()

    def time_left_s(self) -> float | None:
        """Seconds left for the current turn (decision and bank), or None between turns."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def choose(self, action: int) -> str:
        """Play ``action`` for the current turn; empty when taken, else the one line why not."""
        turn, choice = self.turn, self._choice
        if turn is None or choice is None or choice.done():
            return "it is not your turn: wait for the other seats"
        legal = turn.state.legal_actions()
        if action not in legal:
            return (f"action {action} is not legal now: choose one of "
                    f"{', '.join(str(item) for item in legal)}")
        choice.set_result(action)
        return ""


@dataclass(frozen=True)
class HumanSeat:
    """A seat spec for one deal played by a person: it hands out its one agent."""

    agent: HumanAgent
    _made: list[bool] = field(default_factory=list, compare=False)

    @property
    def label(self) -> str:
        """The agent's label."""
        return self.agent.label

    def check(self, game: Game) -> None:
        """A person can play any game."""
        return None

    def create_agent(self) -> HumanAgent:
        """The person's agent, once (a person plays one rotation of a set)."""
        if self._made:
            raise ValueError(f"{self.label} plays one deal of a set, not more")
        self._made.append(True)
        return self.agent
