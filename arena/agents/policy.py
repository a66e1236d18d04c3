"""The in-process agent: a reference policy (``random`` or ``heuristic``), no gRPC."""

from __future__ import annotations

from typing import Any

from arena.agents.base import Agent, DealSetup, Reply, Turn
from arena.agents.conversation import judged_reply
from arena.policies import Policy, make_policy
from arena.protocol import Answer, wire_action


class PolicyAgent(Agent):
    """Plays a seat with ``make_policy(name, game, seat, seed)``, built afresh for each deal."""

    timed = False

    def __init__(self, policy: str) -> None:
        """Remember the policy name; the policy itself is made when a deal opens."""
        self.policy_name = policy
        self._policy: Policy | None = None

    @property
    def label(self) -> str:
        """The policy name."""
        return self.policy_name

    def describe(self) -> dict[str, Any]:
        """``{"kind": "policy", "name": ...}``."""
        return {"kind": "policy", "name": self.policy_name}

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Make the policy for the deal's game, seat and seed."""
        self._policy = make_policy(self.policy_name, setup.game, setup.seat, setup.seed)

    async def decide(self, turn: Turn, timeout_s: float) -> Reply:
        """The policy's action for the turn's observation; one that is not legal is judged as
        a bot's answer would be (a strike, like any seat's)."""
        if self._policy is None:
            raise RuntimeError(f"policy agent {self.policy_name!r} asked to decide before open")
        action = self._policy.act(turn.observation())
        if action in turn.state.legal_actions():
            return Reply(action)
        wire_id = wire_action(action) if action >= 0 else 0  # 0: unset, never an action
        return judged_reply(turn, Answer(turn.request_id, wire_id))
