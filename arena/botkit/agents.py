"""The agents of a conformance check: one bot kept running for every game it is checked on.

``ObservedProcessAgent`` is a local-process agent that notes how its bot took SIGTERM (in
time, socket removed); ``arena.botkit.docker`` has the same for a container. ``Borrowed``
lends an already launched agent to one run of the match runner, which then neither launches
nor stops it, so the bot starts once for all the games.
"""

from __future__ import annotations

import asyncio
import signal
import time
from dataclasses import dataclass
from typing import Any, Protocol

from arena.agents import (
    Agent,
    AgentExit,
    DealEnd,
    DealSetup,
    LocalProcessAgent,
    ReadyInfo,
    Reply,
    Turn,
)
from arena.agents.process import SOCKET_NAME, exit_text
from arena.games import Game


@dataclass(frozen=True)
class StopNote:
    """How a bot ended when it was asked to stop."""

    running: bool
    """False when it had already exited before SIGTERM."""
    status: int
    seconds: float
    socket_left: bool
    grace_s: float

    def problem(self) -> str:
        """Why the stop was not clean, or an empty text."""
        if not self.running:
            return f"the bot had already exited {exit_text(self.status)} before SIGTERM"
        if self.status == -signal.SIGKILL:
            return (f"the bot did not exit within {self.grace_s:g} s of SIGTERM "
                    "and was killed with SIGKILL")
        if self.status not in (0, -signal.SIGTERM):
            return f"the bot exited {exit_text(self.status)} after SIGTERM (expected status 0)"
        if self.socket_left:
            return f"the bot exited but left its socket file {SOCKET_NAME} behind"
        return ""


class ObservedAgent(Protocol):
    """A launched bot a check plays with: an agent that notes how it stopped."""

    remote: bool
    timed: bool
    ready: ReadyInfo | None
    stop_note: StopNote | None

    @property
    def label(self) -> str:
        """The bot's name."""
        ...

    def describe(self) -> dict[str, Any]:
        """The bot's description for the record."""
        ...

    async def launch(self, startup_s: float) -> None:
        """Start the bot."""
        ...

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open a deal."""
        ...

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """The bot's answer."""
        ...

    async def close(self, end: DealEnd) -> None:
        """End a deal."""
        ...

    async def shutdown(self) -> AgentExit:
        """Stop the bot, noting how."""
        ...

    def exited(self) -> bool:
        """True when the bot is known to have exited."""
        ...

    def mark_output(self) -> None:
        """Start a new output window."""
        ...

    def output_windows(self) -> list[str]:
        """The captured output per window."""
        ...


class GameClaims(Protocol):
    """What a bot claims to play: a folder's manifest or an image's labels."""

    def check_game(self, game_id: str) -> None:
        """Raise ``BotConfigError`` when the bot does not play the game."""
        ...


class ObservedProcessAgent(LocalProcessAgent):
    """A local-process agent that notes whether its bot stops cleanly on SIGTERM.

    It extends the agent's stop step, which runs after the channel is closed and before the
    bot's folder (with the socket) is removed, so the socket can still be looked for.
    """

    stop_note: StopNote | None = None

    async def _stop(self, process: asyncio.subprocess.Process) -> int:
        """Stop as usual, noting the time taken, the status and whether the socket is left."""
        running = process.returncode is None
        start = time.monotonic()
        status = await super()._stop(process)
        socket = self.workdir / SOCKET_NAME if self.workdir is not None else None
        self.stop_note = StopNote(running=running, status=status,
                                  seconds=time.monotonic() - start,
                                  socket_left=socket is not None and socket.exists(),
                                  grace_s=self.stop_grace_s)
        return status

    def exited(self) -> bool:
        """True when the bot's process has exited."""
        return self.process is not None and self.process.returncode is not None


class Borrowed(Agent):
    """A launched agent lent to one run: launch and shutdown do nothing; decisions are timed."""

    def __init__(self, agent: ObservedAgent) -> None:
        """Wrap the launched agent."""
        self.agent = agent
        self.remote = agent.remote
        self.timed = agent.timed
        self.slowest_us = 0
        """The longest decision of this run, in microseconds (as the clock charged it)."""
        self.decisions = 0
        self.times: list[tuple[int, int]] = []
        """Each answered decision of this run: its index in the deal and its charged time
        (µs)."""

    @property
    def label(self) -> str:
        """The bot's name."""
        return self.agent.label

    def describe(self) -> dict[str, Any]:
        """As the bot describes itself."""
        return self.agent.describe()

    async def launch(self, startup_s: float) -> None:
        """Already launched: start a new output window for this run."""
        self.agent.mark_output()

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal on the bot."""
        await self.agent.open(setup, ready_s)

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """Ask the bot, noting the time it is charged (its own measure when it has one)."""
        start = time.perf_counter_ns()
        reply: Reply | None = None
        try:
            reply = await self.agent.decide(turn, timeout_s)
            return reply
        finally:
            self.decisions += 1
            took = (reply.took_us if reply is not None and reply.took_us is not None
                    else (time.perf_counter_ns() - start) // 1000)
            if reply is not None:
                self.times.append((turn.request_id - 1, took))
            self.slowest_us = max(self.slowest_us, took)

    async def close(self, end: DealEnd) -> None:
        """End the deal on the bot."""
        await self.agent.close(end)

    async def shutdown(self) -> AgentExit:
        """The bot stays up for the next run."""
        return AgentExit()

    def output_windows(self) -> list[str]:
        """The bot's output during this run."""
        return self.agent.output_windows()[-1:]


@dataclass(frozen=True)
class BorrowedSeat:
    """A seat spec that lends a launched agent to the runner (the one seat the bot plays)."""

    agent: ObservedAgent
    claims: GameClaims
    borrowed: list[Borrowed]

    @property
    def label(self) -> str:
        """``name (bot)``."""
        return f"{self.agent.label} (bot)"

    def check(self, game: Game) -> None:
        """The bot's manifest (or image) must list the game."""
        self.claims.check_game(game.id)

    def create_agent(self) -> Borrowed:
        """A new loan of the agent, kept for its timings."""
        loan = Borrowed(self.agent)
        self.borrowed.append(loan)
        return loan
