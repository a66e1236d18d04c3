"""Bots launched once by a benchmark and lent to many runs of the match runner.

The runner launches a seat's agent at the start of every run and shuts it down at the end;
a benchmark that plays many runs wants to measure the deals, not the start of processes.
``LaunchedSeat`` wraps one started ``LocalProcessAgent``: the runner's launch and shutdown do
nothing, everything else goes to the bot; ``launched_bots`` starts them and stops them all.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from arena.agents import (
    Agent,
    AgentFailure,
    BotManifest,
    DealEnd,
    DealSetup,
    LocalProcessAgent,
    Reply,
    Turn,
)
from arena.agents.process import SOCKET_NAME
from arena.bench.errors import BenchError
from arena.games import Game

OUTPUT_TAIL = 2000
"""Characters of a failed bot's output quoted in an error."""


class LentAgent(Agent):
    """A launched bot as one run sees it: launch and shutdown are the benchmark's business."""

    remote = True

    def __init__(self, bot: LocalProcessAgent) -> None:
        """Lend ``bot`` (already launched)."""
        self.bot = bot
        self.timed = bot.timed

    @property
    def label(self) -> str:
        """The bot's name."""
        return self.bot.label

    def describe(self) -> dict[str, Any]:
        """The bot's description."""
        return self.bot.describe()

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal with the bot."""
        await self.bot.open(setup, ready_s)

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """The bot's answer."""
        return await self.bot.decide(turn, timeout_s)

    async def close(self, end: DealEnd) -> None:
        """Close the deal with the bot."""
        await self.bot.close(end)


class LaunchedSeat:
    """A seat spec for one launched bot process, usable by any number of runs in turn."""

    def __init__(self, bot: LocalProcessAgent) -> None:
        """Seat ``bot`` (already launched)."""
        self.bot = bot

    @property
    def label(self) -> str:
        """``name (bot)``."""
        return f"{self.bot.manifest.name} (bot)"

    def check(self, game: Game) -> None:
        """Raise ``BotConfigError`` when the bot's manifest does not list the game."""
        self.bot.manifest.check_game(game.id)

    def create_agent(self) -> LentAgent:
        """The launched bot, lent to one run."""
        return LentAgent(self.bot)

    @property
    def address(self) -> str:
        """The bot's gRPC address (``unix:`` and its socket)."""
        if self.bot.workdir is None:
            raise RuntimeError(f"bot {self.bot.label} has no address before launch")
        return f"unix:{self.bot.workdir / SOCKET_NAME}"

    def output_tail(self) -> str:
        """The end of the bot's captured output."""
        return "".join(self.bot.output_windows())[-OUTPUT_TAIL:]


async def _launch(manifest: BotManifest, temp_root: Path, startup_s: float) -> LaunchedSeat:
    """Start one bot process and wait until it listens."""
    bot = LocalProcessAgent(manifest, temp_root=temp_root)
    seat = LaunchedSeat(bot)
    try:
        await bot.launch(startup_s)
    except AgentFailure as failure:
        await bot.shutdown()
        tail = seat.output_tail().strip()
        raise BenchError(f"the bot {manifest.name} ({manifest.source}) did not start: "
                         f"{failure.detail}" + (f"; its output: {tail}" if tail else "")
                         ) from None
    except BaseException:
        await bot.shutdown()
        raise
    return seat


@contextlib.asynccontextmanager
async def launched_bots(manifest: BotManifest, temp_root: Path, count: int,
                        startup_s: float) -> AsyncIterator[list[LaunchedSeat]]:
    """``count`` processes of one bot, started together, stopped (and cleaned up) at the end."""
    launches = [asyncio.ensure_future(_launch(manifest, temp_root, startup_s))
                for _ in range(count)]
    try:
        await asyncio.gather(*launches)
    except BaseException:
        await _stop_launched(launches)
        raise
    seats = [launch.result() for launch in launches]
    try:
        yield seats
    finally:
        await asyncio.gather(*(seat.bot.shutdown() for seat in seats))


async def _stop_launched(launches: Sequence[asyncio.Future[LaunchedSeat]]) -> None:
    """Stop the bots of launches that succeeded, after one of them failed."""
    for launch in launches:
        if not launch.done():
            launch.cancel()
    await asyncio.gather(*launches, return_exceptions=True)
    started = [launch.result() for launch in launches
               if launch.done() and not launch.cancelled() and launch.exception() is None]
    await asyncio.gather(*(seat.bot.shutdown() for seat in started), return_exceptions=True)

