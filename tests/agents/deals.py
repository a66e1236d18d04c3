"""Deals played seat by seat on a bot agent, for tests of streams and lines: a deal's setup,
its play to the end, and the stream its seat plays on."""

from __future__ import annotations

from collections.abc import Callable

from arena.agents import DealSetup, Turn
from arena.agents.remote import RemoteAgent
from arena.agents.shared import SharedAgent
from arena.agents.stream import PlayStream
from arena.games import State, load_game

GAME = load_game("briscola")


def setup(seed: int, seat: int = 0) -> DealSetup:
    """Seat ``seat`` of the briscola deal ``seed``."""
    return DealSetup(GAME, seat, seed, f"m{seed}", 1000, 2000, GAME.new_initial_state(seed))


async def play_out(agent: RemoteAgent | SharedAgent, deal: DealSetup,
                   others: Callable[[State], int] | None = None) -> State:
    """Play the deal to its end: the agent at its seat, the first legal action elsewhere."""
    state, request_id = deal.state, 0
    while not state.is_terminal():
        if state.current_player() == deal.seat:
            request_id += 1
            reply = await agent.decide(Turn(request_id, deal.seat, state, 1000, 2000), 5)
            assert reply is not None and not reply.fault
            state.apply_action(reply.action)
        else:
            state.apply_action((others or (lambda s: s.legal_actions()[0]))(state))
    return state


def stream_of(agent: RemoteAgent | SharedAgent) -> PlayStream | None:
    """The stream of the agent's open deal."""
    line = agent.line if isinstance(agent, SharedAgent) else agent._line
    return line._stream
