"""Two deals in turn on one process of a sample bot: whether the second came on the first's
stream (the bot said ``keeps_stream`` and read on after MatchEnd)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from arena.agents import DealEnd, LocalProcessAgent
from arena.agents.stream import PlayStream
from arena.bots import BotManifest
from arena.reasons import Reason
from tests.agents.deals import play_out, setup, stream_of


async def _play(agent: LocalProcessAgent, seed: int) -> tuple[bool, PlayStream | None]:
    """Play seat 0 of deal ``seed`` against first-legal moves; Ready's ``keeps_stream`` and
    the deal's stream."""
    deal = setup(seed)
    await agent.open(deal, 20)
    assert agent.ready is not None
    stream = stream_of(agent)
    await agent.close(DealEnd(await play_out(agent, deal), (Reason.OK, Reason.OK)))
    return agent.ready.keeps_stream, stream


def deals_share_a_stream(folder: Path) -> bool:
    """True when the bot at ``folder`` (built) says ``keeps_stream`` for both of two deals and
    plays the second on the first one's stream, which stayed open."""
    async def main(temp_root: Path) -> bool:
        """Launch, play two deals, shut down."""
        agent = LocalProcessAgent(BotManifest.load(folder), temp_root=temp_root)
        try:
            await agent.launch(20)
            first_keeps, first = await _play(agent, 7)
            second_keeps, second = await _play(agent, 8)
            return first_keeps and second_keeps and first is not None and second is first
        finally:
            await agent.shutdown()

    with tempfile.TemporaryDirectory(prefix="ca-kept-") as temp_root:
        return asyncio.run(main(Path(temp_root)))
