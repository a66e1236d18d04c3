"""The arena's own work per decision: the runner playing against agents that answer at once.

A scripted agent stands in for a remote bot: it builds its MatchStart, every DecisionRequest
(observation, encoding) and the MatchEnd as a bot's agent does (``arena.agents.conversation``),
and answers each request at once with the serialized Decision of a random playout chosen
beforehand, which it reads and checks as a bot's agent does; the runner applies and records it
as any answer. The thread's CPU time of the whole run divided by its decisions is the
arena-side cost of a decision, without any wait for a bot. The messages are kept for the baselines,
which send the same bytes in the same order to the same number of processes: per deal, each
entrant's MatchStart, then every request with the entrant it went to, in the order of play.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.agents import Agent, DealEnd, DealSetup, Reply, Turn
from arena.agents.conversation import Conversation, end_bytes, judged_reply, plain_reply
from arena.bench.errors import BenchError
from arena.games import Game
from arena.match.results import DuplicateResult
from arena.match.runner import run_duplicate_async
from arena.protocol import read_answer, wire_action
from arena.protocol.schema import agent as pb


def random_script(game: Game, seed: int) -> list[int]:
    """The engine actions of a uniformly random playout of deal ``seed``."""
    rand = random.Random(seed).random
    state = game.new_initial_state(seed)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[int(rand() * len(legal))]
        state.apply_action(action)
        actions.append(action)
    return actions


def decision_bytes(script: Sequence[int]) -> list[bytes]:
    """The serialized Decision answering each request of a playout (request id = index + 1)."""
    return [pb.PlayResponse(decision=pb.Decision(request_id=index + 1,
                                                 action_id=wire_action(action)))
            .SerializeToString() for index, action in enumerate(script)]


@dataclass
class DealMessages:
    """What the runner sent in one deal: each entrant's MatchStart, then every request."""

    starts: dict[int, bytes] = field(default_factory=dict)
    """Each entrant's MatchStart, by entrant (the agent's index in the set)."""
    turns: list[tuple[int, bytes]] = field(default_factory=list)
    """Every DecisionRequest with the entrant it went to, in the order of play."""


class MessageLog:
    """The messages of a duplicate set, by deal; the scripted agents write to it."""

    def __init__(self) -> None:
        """No deal yet."""
        self.deals: dict[str, DealMessages] = {}

    def deal(self, match_id: str) -> DealMessages:
        """The messages of the deal ``match_id`` (a new entry the first time)."""
        return self.deals.setdefault(match_id, DealMessages())


class ScriptedAgent(Agent):
    """A remote-like agent answering at once from a script; it logs the messages it gets."""

    remote = True
    conversation: Conversation
    """The deal's conversation, from ``open`` on."""

    def __init__(self, answers: Sequence[bytes], log: MessageLog, entrant: int) -> None:
        """Answer request ``i`` with ``answers[i - 1]``; log each deal's messages as those of
        ``entrant``."""
        self.answers = answers
        self.log = log
        self.entrant = entrant
        self.messages = DealMessages()

    @property
    def label(self) -> str:
        """``scripted``."""
        return "scripted"

    def describe(self) -> dict[str, Any]:
        """``{"kind": "scripted"}``."""
        return {"kind": "scripted"}

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Build the MatchStart as for a bot and log it."""
        self.messages = self.log.deal(setup.match_id)
        self.conversation = Conversation(setup)
        self.messages.starts[self.entrant] = self.conversation.start_bytes()

    async def decide(self, turn: Turn, timeout_s: float) -> Reply:
        """Build the request as for a bot, log it, and read the scripted answer as a bot's."""
        self.messages.turns.append((self.entrant, self.conversation.request_bytes(turn)))
        raw = self.answers[turn.request_id - 1]
        return plain_reply(turn, raw) or judged_reply(turn, read_answer(raw))

    async def close(self, end: DealEnd) -> None:
        """Build the MatchEnd as for a bot."""
        end_bytes(end)


@dataclass(frozen=True)
class ScriptedSeat:
    """A seat spec making one entrant's scripted agents (one per rotation), which share one
    script and one message log with the other entrants'."""

    answers: Sequence[bytes]
    log: MessageLog
    entrant: int

    @property
    def label(self) -> str:
        """``scripted``."""
        return "scripted"

    def check(self, game: Game) -> None:
        """Any game."""

    def create_agent(self) -> ScriptedAgent:
        """A scripted agent of the entrant."""
        return ScriptedAgent(self.answers, self.log, self.entrant)


@dataclass(frozen=True)
class OverheadSample:
    """One measured duplicate set: its decisions, the CPU time, and the messages sent."""

    decisions: int
    cpu_ns: int
    deals: list[DealMessages]
    """Each deal's messages, in the order of play."""

    @property
    def request_sizes(self) -> list[int]:
        """The size in bytes of every DecisionRequest."""
        return [len(request) for deal in self.deals for _, request in deal.turns]

    @property
    def us_per_decision(self) -> float:
        """Arena-side CPU microseconds per decision."""
        return self.cpu_ns / self.decisions / 1000


def check_clean(result: DuplicateResult, what: str) -> None:
    """Raise ``BenchError`` when a deal of ``result`` was void or had a fault."""
    problems = [problem for deal in result.deals for problem in deal.problems()]
    faults = [f"{fault.kind} at decision {fault.decision} of seat {fault.seat}: {fault.detail}"
              for deal in result.deals for fault in deal.faults]
    if problems or faults:
        raise BenchError(f"{what} with seed {result.seed} did not play cleanly: "
                         + "; ".join(problems + faults))


async def measure_overhead(game: Game, seed: int) -> OverheadSample:
    """Play a duplicate set of deal ``seed`` with scripted agents at every seat; time it."""
    answers = decision_bytes(random_script(game, seed))
    log = MessageLog()
    seats = [ScriptedSeat(answers, log, entrant) for entrant in range(game.num_players)]
    clock = time.thread_time_ns
    start = clock()
    result = await run_duplicate_async(game, seed, seats)
    cpu_ns = max(clock() - start, 1)
    check_clean(result, "a scripted duplicate set")
    decisions = sum(len(record.actions) for record in result.records)
    return OverheadSample(decisions, cpu_ns, list(log.deals.values()))
