"""The in-process agent plays its policy's legal actions and is judged like a bot otherwise."""

from __future__ import annotations

import asyncio

from arena.agents import DealSetup, Reply, Turn
from arena.agents.policy import PolicyAgent
from arena.games import Observation, load_game

GAME = load_game("briscola")


class Stubborn:
    """A policy that always plays the same action, legal or not."""

    def __init__(self, action: int) -> None:
        """Remember the action."""
        self.action = action

    def act(self, observation: Observation) -> int:
        """The same action whatever is seen."""
        return self.action


def decide(action: int | None) -> tuple[Reply, list[int]]:
    """The reply of a policy agent to the first turn of a deal, its policy playing ``action``
    (None: the real random policy), and the turn's legal actions."""
    state = GAME.new_initial_state(7)
    agent = PolicyAgent("random")
    seat = state.current_player()
    asyncio.run(agent.open(DealSetup(GAME, seat, 7, "m", 1000, 2000, state), 1.0))
    if action is not None:
        agent._policy = Stubborn(action)  # type: ignore[assignment]
    reply = asyncio.run(agent.decide(Turn(1, seat, state, 1000, 2000), 1.0))
    return reply, list(state.legal_actions())


def test_a_legal_policy_action_is_played_as_is() -> None:
    reply, legal = decide(None)
    assert reply.action in legal and not reply.fault


def test_an_illegal_policy_action_is_a_fault_not_a_move() -> None:
    reply, legal = decide(99)
    assert 99 not in legal
    assert reply.fault == "illegal"
    assert "action id 100 is not legal" in reply.detail


def test_a_negative_policy_action_is_the_unset_fault() -> None:
    reply, _ = decide(-1)
    assert reply.fault == "unset"
