"""A seat of one deal played by a bot instance that plays several deals at once.

A bot whose manifest says ``matches_at_once`` may play that many deals with one instance at
the same time, each of another deal. ``SharedAgent`` is one such deal's agent: it plays on a
line of its own (``arena.agents.line``) over the instance's channel, and admits each deal in
the instance's ledger, so the instance is never shown one deal twice, nor two seats of one
deal. Whoever launched the instance stops it: ``launch`` and ``shutdown`` here do nothing to
the bot. The bot's output is the instance's, one stream for all its deals, so it is not cut
into the windows of a deal (``output_windows`` is empty; the owner keeps the output).
"""

from __future__ import annotations

from typing import Any

from arena.agents.base import Agent, AgentExit, DealEnd, DealSetup, Reply, Turn
from arena.agents.line import DealLine
from arena.agents.remote import RemoteAgent

SHARED_EXIT = "shared instance: its owner stops it"
"""The exit detail of a shared agent's shutdown (the instance runs on)."""


class SharedAgent(Agent):
    """One deal's seat on a launched instance that may play other deals at the same time."""

    remote = True

    def __init__(self, bot: RemoteAgent) -> None:
        """A seat on ``bot`` (launched by its owner), with a line of its own."""
        self.bot = bot
        self.line = DealLine(bot)
        self.timed = bot.timed

    @property
    def label(self) -> str:
        """The bot's name."""
        return self.bot.label

    def describe(self) -> dict[str, Any]:
        """The instance's description, with what the bot said in Ready on this line."""
        description = self.bot.describe()
        description.pop("ready", None)
        if self.line.ready is not None:
            description["ready"] = self.line.ready.to_dict()
        return description

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal on this seat's line."""
        await self.line.open(setup, ready_s)

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """The answer to the turn on this seat's line."""
        return await self.line.decide(turn, timeout_s)

    async def close(self, end: DealEnd) -> None:
        """Close the deal on this seat's line."""
        await self.line.close(end)

    async def shutdown(self) -> AgentExit:
        """Stop this seat's stream, if a deal is still open; the instance runs on."""
        await self.line.drop()
        return AgentExit(None, SHARED_EXIT)
