"""Bots launched once by a benchmark and lent to many runs of the match runner.

The runner launches a seat's agents at the start of every run and shuts them down at the end;
a benchmark that plays many runs wants to measure the deals, not the start of processes.
``LaunchedSeat`` holds started ``LocalProcessAgent`` instances, one per rotation of a set, and
lends them in turn (the runner asks for one per rotation, so every rotation of a set gets an
instance of its own, which has never seen the set's deal): the runner's launch and shutdown do
nothing, everything else goes to the bot; ``launched_bots`` starts them and stops them all.

A bot whose manifest lets one process play several deals at once (``matches_at_once``) is
lent to that many runs at the same time: ``shared_lanes`` seats every lane of a group on the
same processes, each run's seat on a line of its own (``arena.agents.shared``), so K matches at
once need the processes of one lane per ``matches_at_once`` lanes, not of K lanes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from arena.agents import Agent, AgentFailure, DealEnd, DealSetup, LocalProcessAgent, Reply, Turn
from arena.agents.process import SOCKET_NAME
from arena.agents.shared import SharedAgent
from arena.bench.errors import BenchError
from arena.bots import BotManifest
from arena.games import Game

OUTPUT_TAIL = 2000
"""Characters of a failed bot's output quoted in an error."""


class LentAgent(Agent):
    """A launched agent as one run sees it: launch and shutdown are the benchmark's business;
    the runner's wait for each answer goes to ``trips`` (µs)."""

    def __init__(self, agent: Agent, trips: list[int]) -> None:
        """Lend ``agent`` (already launched)."""
        self.agent = agent
        self.trips = trips
        self.remote = agent.remote
        self.timed = agent.timed

    @property
    def label(self) -> str:
        """The agent's name."""
        return self.agent.label

    def describe(self) -> dict[str, Any]:
        """The agent's description."""
        return self.agent.describe()

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal."""
        await self.agent.open(setup, ready_s)

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """The agent's answer, its round trip noted."""
        start = time.perf_counter_ns()
        reply = await self.agent.decide(turn, timeout_s)
        self.trips.append((time.perf_counter_ns() - start) // 1000)
        return reply

    async def close(self, end: DealEnd) -> None:
        """Close the deal."""
        await self.agent.close(end)


class LaunchedSeat:
    """A seat spec for launched instances of one bot, lent in turn to any number of runs."""

    def __init__(self, bots: Sequence[LocalProcessAgent], trips: list[int] | None = None,
                 shared: bool = False) -> None:
        """Seat ``bots`` (already launched; at least one per rotation of a set); the round
        trips of their decisions go to ``trips`` (a list of the seat's own by default);
        ``shared``: other seats lend the same bots at the same time, so each run plays on a
        line of its own."""
        self.bots = list(bots)
        self.shared = shared
        self.trips: list[int] = [] if trips is None else trips
        """The round trips (µs) of every decision of the lent agents, in order."""
        self._lent = 0

    @property
    def bot(self) -> LocalProcessAgent:
        """The first instance."""
        return self.bots[0]

    @property
    def label(self) -> str:
        """``name (bot)``."""
        return f"{self.bot.manifest.name} (bot)"

    def check(self, game: Game) -> None:
        """Raise ``BotConfigError`` when the bot's manifest does not list the game."""
        self.bot.manifest.check_game(game.id)

    def create_agent(self) -> LentAgent:
        """The next launched instance, lent to one rotation of a run."""
        bot = self.bots[self._lent % len(self.bots)]
        self._lent += 1
        return LentAgent(SharedAgent(bot) if self.shared else bot, self.trips)

    @property
    def address(self) -> str:
        """The bot's gRPC address (``unix:`` and its socket)."""
        if self.bot.workdir is None:
            raise RuntimeError(f"bot {self.bot.label} has no address before launch")
        return f"unix:{self.bot.workdir / SOCKET_NAME}"

    def output_tail(self) -> str:
        """The end of the first instance's captured output."""
        return _tail(self.bot)


def _tail(bot: LocalProcessAgent) -> str:
    """The end of a bot's captured output."""
    return "".join(bot.output_windows())[-OUTPUT_TAIL:]


async def _launch(manifest: BotManifest, temp_root: Path, startup_s: float
                  ) -> LocalProcessAgent:
    """Start one bot process and wait until it listens; ``BenchError`` if it does not."""
    bot = LocalProcessAgent(manifest, temp_root=temp_root)
    try:
        await bot.launch(startup_s)
    except AgentFailure as failure:
        await bot.shutdown()
        tail = _tail(bot).strip()
        raise BenchError(f"the bot {manifest.name} ({manifest.source}) did not start: "
                         f"{failure.detail}" + (f"; its output: {tail}" if tail else "")
                         ) from None
    except BaseException:
        await bot.shutdown()
        raise
    return bot


@contextlib.asynccontextmanager
async def launched_bots(manifest: BotManifest, temp_root: Path, count: int,
                        startup_s: float, rotations: int = 1
                        ) -> AsyncIterator[list[LaunchedSeat]]:
    """``count`` seats of one bot, each with ``rotations`` processes (one per rotation of the
    sets it plays), all started together, stopped (and cleaned up) at the end."""
    launches = [asyncio.ensure_future(_launch(manifest, temp_root, startup_s))
                for _ in range(count * rotations)]
    try:
        await asyncio.gather(*launches)
    except BaseException:
        await _stop_launched(launches)
        raise
    bots = [launch.result() for launch in launches]
    try:
        yield [LaunchedSeat(bots[index * rotations:(index + 1) * rotations])
               for index in range(count)]
    finally:
        await asyncio.gather(*(bot.shutdown() for bot in bots))


@contextlib.asynccontextmanager
async def launched_lanes(manifest: BotManifest, temp_root: Path, players: int, lanes: int,
                         startup_s: float, rotations: int = 1
                         ) -> AsyncIterator[list[list[LaunchedSeat]]]:
    """``lanes`` lanes of ``players`` seats of one bot, each seat with ``rotations``
    processes, started together; lanes share processes as the bot's ``matches_at_once``
    allows (``shared_lanes``)."""
    per_group = max(1, min(manifest.matches_at_once, lanes))
    groups = -(-lanes // per_group)
    async with launched_bots(manifest, temp_root, groups * players, startup_s,
                             rotations) as seats:
        yield shared_lanes([seats[group * players:(group + 1) * players]
                            for group in range(groups)], lanes, per_group)


def shared_lanes(groups: Sequence[Sequence[LaunchedSeat]], lanes: int, per_group: int
                 ) -> list[list[LaunchedSeat]]:
    """``lanes`` lanes of seats on the launched seats of ``groups`` (one lane's seats each),
    ``per_group`` lanes to a group, every lane's seat lending the group's bots on lines of its
    own when a group serves more than one lane; the round trips go to each group seat's
    list."""
    shared = per_group > 1
    return [[LaunchedSeat(seat.bots, seat.trips, shared) for seat in groups[lane // per_group]]
            for lane in range(lanes)]


async def _stop_launched(launches: Sequence[asyncio.Future[LocalProcessAgent]]) -> None:
    """Stop the bots of launches that succeeded, after one of them failed."""
    for launch in launches:
        if not launch.done():
            launch.cancel()
    await asyncio.gather(*launches, return_exceptions=True)
    started = [launch.result() for launch in launches
               if launch.done() and not launch.cancelled() and launch.exception() is None]
    await asyncio.gather(*(bot.shutdown() for bot in started), return_exceptions=True)

