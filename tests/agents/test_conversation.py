"""A deal's conversation in wire form: requests built from the state, answers made replies."""

from __future__ import annotations

import pytest

from arena.agents import DealEnd, DealSetup, Reply, Turn
from arena.agents.conversation import Conversation, end_bytes, judged_reply, plain_reply
from arena.games import Observation, load_game
from arena.match.faults import FaultKind
from arena.protocol import (
    Answer,
    RequestEncoder,
    match_end_payload,
    match_start_payload,
    serialized_match_end,
)
from arena.protocol.v1 import agent_pb2 as pb
from arena.reasons import Reason

LEGAL = [2, 7, 10]
"""Engine actions; their wire ids are 3, 8 and 11."""


class Legal:
    """A turn's state with fixed legal actions (no observation)."""

    def __init__(self, legal: list[int]) -> None:
        """Keep the legal actions."""
        self.legal = legal

    def observation(self, seat: int) -> Observation:
        """Not needed here."""
        raise AssertionError("no observation is read to judge an answer")

    def legal_actions(self) -> list[int]:
        """The fixed legal actions."""
        return list(self.legal)


def turn(request_id: int = 5, legal: list[int] = LEGAL) -> Turn:
    """Decision ``request_id`` of seat 0 among ``legal``."""
    return Turn(request_id, 0, Legal(legal), 1000, 2000)


def decision(request_id: int, action_id: int, debug: str = "") -> bytes:
    """A serialized Decision."""
    return pb.PlayResponse(decision=pb.Decision(request_id=request_id, action_id=action_id,
                                                debug=debug)).SerializeToString()


def test_a_legal_answer_gives_its_engine_action() -> None:
    assert judged_reply(turn(), Answer(5, 8), 40) == Reply(7, took_us=40)
    assert plain_reply(turn(), decision(5, 8), 40) == Reply(7, took_us=40)


def test_debug_text_comes_with_the_action() -> None:
    assert plain_reply(turn(), decision(5, 8, "hm"), 1) is None
    assert judged_reply(turn(), Answer(5, 8, "hm")) == Reply(7, debug="hm")


@pytest.mark.parametrize(("answer", "kind", "detail"), [
    (Answer(5, 9), FaultKind.ILLEGAL, "action id 9 is not legal; legal ids: 3, 8, 11"),
    (Answer(5, 0), FaultKind.UNSET, "action id 0 (unset) is never an action"),
    (Answer(4, 8), FaultKind.STALE, "answered request 4 while request 5 was asked"),
    (Answer(0, 0, malformed="an empty PlayResponse where a Decision was due"),
     FaultKind.MALFORMED, "an empty PlayResponse where a Decision was due"),
])
def test_each_fault_is_named(answer: Answer, kind: FaultKind, detail: str) -> None:
    reply = judged_reply(turn(), answer)
    assert (FaultKind(reply.fault), reply.detail) == (kind, detail)
    if not answer.malformed:
        assert plain_reply(turn(), decision(*answer[:2]), 1) is None


def test_long_legal_lists_are_shortened() -> None:
    reply = judged_reply(turn(1, list(range(40))), Answer(1, 99))
    assert reply.detail.endswith("11, 12, ... (40 in all)")


def test_the_conversation_builds_the_seats_messages_from_the_deal() -> None:
    """MatchStart and every request are the protocol's bytes; the state is followed as it goes
    on; the deal's MatchEnd is built once for all its seats."""
    game = load_game("briscola", 2)
    state = game.new_initial_state(3)
    setups = [DealSetup(game, seat, 3, "m", 1000, 2000, state) for seat in range(2)]
    talks = [Conversation(setup) for setup in setups]
    encoders = [RequestEncoder(state, seat) for seat in range(2)]
    for seat, talk in enumerate(talks):
        assert talk.start_bytes() == match_start_payload(game, seat, "m", 1000, 2000)
    request_id = 0
    while not state.is_terminal():
        request_id += 1
        seat = state.current_player()
        sent = talks[seat].request_bytes(Turn(request_id, seat, state, 900, request_id))
        assert sent == encoders[seat].request_bytes(request_id, 900, request_id)
        state.apply_action(state.legal_actions()[0])
    end = DealEnd(state, (Reason.OK, Reason.OK))
    assert end_bytes(end) == match_end_payload(serialized_match_end(state, (Reason.OK, Reason.OK)))
    assert end_bytes(DealEnd(state, (Reason.OK, Reason.OK))) is end_bytes(end)
