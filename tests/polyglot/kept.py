"""Two deals in turn on one process of a sample bot: whether the second came on the first's
stream (the bot said ``keeps_stream`` and read on after MatchEnd)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from arena.agents import DealEnd, DealSetup, LocalProcessAgent, Turn
from arena.agents.stream import PlayStream
from arena.bots import BotManifest
from arena.games import load_game
from arena.reasons import Reason

GAME = load_game("briscola")


async def _play(agent: LocalProcessAgent, seed: int) -> tuple[bool, PlayStream | None]:
    """Play seat 0 of deal ``seed`` against first-legal moves; Ready's ``keeps_stream`` and
    the deal's stream."""
    state = GAME.new_initial_state(seed)
    await agent.open(DealSetup(GAME, 0, seed, f"m{seed}", 1000, 2000, state), 20)
    assert agent.ready is not None
    stream, request_id = agent._line._stream, 0
    while not state.is_terminal():
        if state.current_player() == 0:
            request_id += 1
            reply = await agent.decide(Turn(request_id, 0, state, 1000, 2000), 5)
            assert reply is not None and not reply.fault, reply
            state.apply_action(reply.action)
        else:
            state.apply_action(state.legal_actions()[0])
    await agent.close(DealEnd(state, (Reason.OK, Reason.OK)))
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
