"""One seat's DecisionRequests, two ways behind one interface: the fast encoder and the reference.

``RequestEncoding`` is what an agent asks of an encoder made for one seat of one match (it
follows the match's state as it goes on): the serialized PlayRequest of the seat's current
decision. ``RequestEncoder`` (``encoder``) builds it from cached bytes and runs at every
decision of a bot; ``MessageEncoder`` builds the protobuf messages with the plain conversion
functions and lets protobuf serialize them: the reference that the fast one is compared with,
byte for byte.
"""

from __future__ import annotations

from typing import Protocol

from arena.games import State
from arena.protocol.actions import legal_actions_message
from arena.protocol.errors import ProtocolError
from arena.protocol.observations import observation_to_message
from arena.protocol.v1 import agent_pb2 as pb


class RequestEncoding(Protocol):
    """Builds one seat's PlayRequests of one match, as its state goes on."""

    def request_bytes(self, request_id: int, decision_ms: int, bank_ms: int) -> bytes:
        """The seat's PlayRequest (a DecisionRequest) now, serialized, ready to send as is."""


class MessageEncoder:
    """The reference encoding: protobuf messages built by the plain conversion functions."""

    __slots__ = ("seat", "state")

    def __init__(self, state: State, seat: int) -> None:
        """Encode for ``seat`` of the match ``state`` (the state the match goes on in)."""
        if not 0 <= seat < state.game.num_players:
            raise ProtocolError(f"seat {seat} is not a seat of {state.game!r} "
                                f"(0..{state.game.num_players - 1})")
        self.state = state
        self.seat = seat

    def decision_request(self, request_id: int, decision_ms: int,
                         bank_ms: int) -> pb.DecisionRequest:
        """The seat's DecisionRequest: observation, legal actions (when it acts), time left."""
        state, seat = self.state, self.seat
        legal = legal_actions_message(state) if seat == state.current_player() else []
        return pb.DecisionRequest(
            request_id=request_id, observation=observation_to_message(state.observation(seat)),
            legal_actions=legal, time_left=pb.TimeLeft(decision_ms=decision_ms, bank_ms=bank_ms))

    def request_bytes(self, request_id: int, decision_ms: int, bank_ms: int) -> bytes:
        """The seat's PlayRequest, as protobuf serializes it."""
        if request_id < 0:
            raise ProtocolError(f"request id {request_id} is negative; request ids are uint64")
        request = self.decision_request(request_id, decision_ms, bank_ms)
        return pb.PlayRequest(decision_request=request).SerializeToString()
