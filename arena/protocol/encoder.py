"""RequestEncoder: one seat's DecisionRequests of one match, built fast from cached bytes.

A seat's event log only grows, so the encoder keeps the serialized events it has already
sent and appends only the new ones; the other fields are encoded straight to bytes (no
message objects). Encoded events and legal actions are also kept by content, process-wide,
since every seat and match repeats them.
"""

from __future__ import annotations

from arena.games import Event, Observation, State
from arena.protocol.errors import ProtocolError
from arena.protocol.serialize import (
    DECISION_REQUEST,
    OBSERVATION,
    events_bytes,
    game_seat_bytes,
    legal_actions_bytes,
    observation_head,
    observation_tail,
    request_id_bytes,
    time_left_bytes,
)
from arena.protocol.v1 import agent_pb2 as pb
from arena.protocol.wire import varint


class RequestEncoder:
    """Builds the PlayRequest of ``seat``'s current decision in ``state`` (one match)."""

    __slots__ = ("_count", "_events", "_game_seat", "_last", "seat", "state")

    def __init__(self, state: State, seat: int) -> None:
        """Encode for ``seat`` of the match ``state`` (the state the match goes on in)."""
        game = state.game
        if not 0 <= seat < game.num_players:
            raise ProtocolError(f"seat {seat} is not a seat of {game!r} "
                                f"(0..{game.num_players - 1})")
        self.state = state
        self.seat = seat
        self._game_seat = game_seat_bytes(game.id, seat, game.num_players)
        self._events = bytearray()
        self._count = 0
        self._last: Event | None = None

    def observation_bytes(self, observation: Observation | None = None) -> bytes:
        """The seat's Observation message, serialized (``observation``: the seat's current one)."""
        obs = self.state.observation(self.seat) if observation is None else observation
        return b"".join((observation_head(obs, self._game_seat), self._event_bytes(obs.events),
                         observation_tail(obs)))

    def decision_bytes(self, request_id: int, decision_ms: int, bank_ms: int) -> bytes:
        """The seat's DecisionRequest, serialized: observation, legal actions, time left."""
        state = self.state
        obs = state.observation(self.seat)
        head = observation_head(obs, self._game_seat)
        events = self._event_bytes(obs.events)
        tail = observation_tail(obs)
        parts = [request_id_bytes(request_id), OBSERVATION,
                 varint(len(head) + len(events) + len(tail)), head, events, tail]
        if obs.legal_actions:
            parts.append(legal_actions_bytes(obs.legal_actions, state.action_meaning))
        parts.append(time_left_bytes(decision_ms, bank_ms))
        return b"".join(parts)

    def request_bytes(self, request_id: int, decision_ms: int, bank_ms: int) -> bytes:
        """The seat's PlayRequest (a DecisionRequest), serialized, ready to send as is."""
        body = self.decision_bytes(request_id, decision_ms, bank_ms)
        return DECISION_REQUEST + varint(len(body)) + body

    def request(self, request_id: int, decision_ms: int, bank_ms: int) -> pb.PlayRequest:
        """The seat's PlayRequest as a message (parsed from ``request_bytes``)."""
        return pb.PlayRequest.FromString(self.request_bytes(request_id, decision_ms, bank_ms))

    def _event_bytes(self, events: tuple[Event, ...]) -> bytearray:
        """The serialized events of the seat's log, encoding only those not seen before."""
        count = self._count
        if count and (count > len(events) or (events[count - 1] is not self._last
                                              and events[count - 1] != self._last)):
            self._events, count = bytearray(), 0
        if len(events) > count:
            self._events += events_bytes(events[count:])
            self._count = len(events)
            self._last = events[-1]
        return self._events
