"""In-process agents with scripted answers and a fake clock, for runner tests without processes."""

from __future__ import annotations

from typing import Any

from arena.agents import Agent, DealEnd, DealSetup, Reply, Turn
from arena.agents.conversation import Conversation, judged_reply
from arena.agents.errors import crash
from arena.games import Game
from arena.protocol import Answer
from arena.protocol.v1 import agent_pb2 as pb


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        """Start at zero."""
        self.ns = 0

    def __call__(self) -> int:
        """Now, in nanoseconds."""
        return self.ns

    def advance_ms(self, ms: float) -> None:
        """Let time pass."""
        self.ns += int(ms * 1_000_000)


class ScriptAgent(Agent):
    """Plays the first legal action, except at the decisions its script names (from 1).

    Steps: ``slow:MS`` (take MS on the fake clock), ``timeout`` (no answer), ``illegal``,
    ``unset``, ``stale``, ``malformed``, ``debug:TEXT``, ``crash`` (an AgentFailure) and ``bug``
    (an arena-side exception). Each answer is judged as a bot's would be
    (``arena.agents.conversation``).
    """

    def __init__(self, script: dict[int, str] | None = None, clock: FakeClock | None = None,
                 remote: bool = False) -> None:
        """Keep the script; ``remote`` agents build and read their wire requests."""
        self.script = script or {}
        self.clock = clock or FakeClock()
        self.remote = remote
        self.count = 0
        self.timeouts: list[float] = []
        self.time_left: list[tuple[int, int]] = []
        self.opened: list[DealSetup] = []
        self.ended: list[tuple[int, ...]] = []
        self.conversation: Conversation | None = None

    @property
    def label(self) -> str:
        """``script``."""
        return "script"

    def describe(self) -> dict[str, Any]:
        """A fake's description."""
        return {"kind": "script"}

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Count decisions afresh."""
        self.opened.append(setup)
        self.count = 0
        if self.remote:
            self.conversation = Conversation(setup)
            start = pb.PlayRequest.FromString(self.conversation.start_bytes()).match_start
            assert start.game == setup.game.id

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """Answer as scripted."""
        self.count += 1
        self.timeouts.append(timeout_s)
        if self.conversation is not None:
            payload = self.conversation.request_bytes(turn)
            request = pb.PlayRequest.FromString(payload).decision_request
            assert request.request_id == turn.request_id
            self.time_left.append((request.time_left.decision_ms, request.time_left.bank_ms))
        step, _, argument = self.script.get(self.count, "").partition(":")
        first = turn.observation().legal_actions[0] + 1
        if step == "slow":
            self.clock.advance_ms(float(argument))
        elif step == "timeout":
            self.clock.advance_ms(timeout_s * 1000)
            return None
        elif step == "crash":
            raise crash("scripted crash")
        elif step == "bug":
            raise KeyError("an arena bug")
        answers = {"illegal": Answer(turn.request_id, 999), "unset": Answer(turn.request_id, 0),
                   "stale": Answer(turn.request_id + 7, first),
                   "malformed": Answer(0, 0, malformed="an empty PlayResponse where a "
                                                       "Decision was due"),
                   "debug": Answer(turn.request_id, first, debug=argument)}
        return judged_reply(turn, answers.get(step, Answer(turn.request_id, first)))

    async def close(self, end: DealEnd) -> None:
        """Note the reasons of the deal's end."""
        self.ended.append(end.reasons)


class FakeSeat:
    """A seat spec that hands out the given agents in turn (one per rotation)."""

    def __init__(self, *agents: Agent) -> None:
        """Keep the agents."""
        self.agents = list(agents)
        self.made = 0

    @property
    def label(self) -> str:
        """The agents' label."""
        return self.agents[0].label

    def check(self, game: Game) -> None:
        """Any game will do."""

    def create_agent(self) -> Agent:
        """The next given agent (the last one again once all are given)."""
        agent = self.agents[min(self.made, len(self.agents) - 1)]
        self.made += 1
        return agent

