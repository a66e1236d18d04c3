"""RequestEncoder: one seat's DecisionRequests of one match, built fast from cached bytes.

A seat's event log only grows, so the encoder keeps the serialized events it has already
sent and appends only the new ones. The other fields are encoded straight to bytes (no
message objects), each through a process-wide cache by value (``fieldcache``): hands, sizes,
points, tricks and the like recur in every match, and so do legal actions with their meanings.
The bytes are those protobuf's own serializer gives for the same message.
"""

from __future__ import annotations

from functools import partial
from typing import Final, Protocol

from arena.games import ActionMeaning, Event, Game, Observation
from arena.protocol.errors import ProtocolError
from arena.protocol.fieldcache import FieldCache, IntsCache, legal_entries
from arena.protocol.serialize import (
    CALLED_CARD,
    CURRENT_PLAYER,
    DEALER,
    DECISION_REQUEST,
    F1_VARINT,
    F2_LENGTH,
    F2_VARINT,
    HAND,
    HAND_NUMBER,
    HAND_SIZES,
    OBSERVATION,
    POINTS,
    SCORES,
    STOCK_SIZE,
    TABLE,
    TEAMMATES,
    TRICK,
    TRUMP_CARD,
    TRUMP_SUIT,
    VISIBLE_HANDS,
    events_bytes,
    game_seat_bytes,
    phase_bytes,
    request_id_bytes,
    time_left_bytes,
)
from arena.protocol.v1 import agent_pb2 as pb
from arena.protocol.wire import (
    length_field,
    packed_doubles,
    packed_varints,
    packed_zigzags,
    varint,
    varint_field,
    zigzag,
    zigzag_field,
)


def _turn_fields(key: tuple[int, int, str, int]) -> bytes:
    """Fields 4-7 of an Observation: hand number, dealer, phase and current player."""
    hand_number, dealer, phase, current_player = key
    return b"".join((varint_field(HAND_NUMBER, hand_number), varint_field(DEALER, dealer),
                     phase_bytes(phase) if phase else b"",
                     zigzag_field(CURRENT_PLAYER, current_player)))


def _visible_hands(hands: tuple[tuple[int, tuple[int, ...]], ...]) -> bytes:
    """Field 13 of an Observation: the hands the rules show."""
    return b"".join([length_field(VISIBLE_HANDS, varint_field(F1_VARINT, seat)
                                  + packed_zigzags(F2_LENGTH, cards))
                     for seat, cards in hands])


def _trump_fields(key: tuple[int, int, int]) -> bytes:
    """Fields 14-16 of an Observation: trump suit, trump card and called card."""
    trump_suit, trump_card, called_card = key
    return (zigzag_field(TRUMP_SUIT, trump_suit) + zigzag_field(TRUMP_CARD, trump_card)
            + zigzag_field(CALLED_CARD, called_card))


def _trick(plays: tuple[tuple[int, int], ...]) -> bytes:
    """Field 18 of an Observation: the trick in progress."""
    parts = []
    for seat, card in plays:
        body = (F1_VARINT + varint(seat) if seat else b"") + (
            F2_VARINT + zigzag(card) if card else b"")
        parts.append(TRICK + varint(len(body)) + body)
    return b"".join(parts)


_TURNS: Final = FieldCache(_turn_fields)
_HANDS: Final = IntsCache(partial(packed_zigzags, HAND))
_HAND_SIZES: Final = IntsCache(partial(packed_varints, HAND_SIZES))
_POINTS: Final = IntsCache(partial(packed_zigzags, POINTS))
_VISIBLE_HANDS: Final = FieldCache(_visible_hands)
_TRUMPS: Final = FieldCache(_trump_fields)
_TABLES: Final = IntsCache(partial(packed_zigzags, TABLE))
_TRICKS: Final = FieldCache(_trick)
_STOCK_SIZES: Final = FieldCache(partial(varint_field, STOCK_SIZE))
_TEAMMATES: Final = IntsCache(partial(packed_varints, TEAMMATES))


class MatchView(Protocol):
    """What the encoder reads of a match (a ``State`` is one): its game, a seat's observation
    and the meaning of an action."""

    @property
    def game(self) -> Game:
        """The game being played."""

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now."""

    def action_meaning(self, action: int) -> ActionMeaning:
        """What ``action`` does now."""


class RequestEncoder:
    """Builds the PlayRequest of ``seat``'s current decision in ``state`` (one match)."""

    __slots__ = ("_count", "_events", "_game_seat", "_last", "seat", "state")

    def __init__(self, state: MatchView, seat: int) -> None:
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
        return self._observation(obs)

    def decision_bytes(self, request_id: int, decision_ms: int, bank_ms: int) -> bytes:
        """The seat's DecisionRequest, serialized: observation, legal actions, time left."""
        return b"".join(self._decision_parts(request_id, decision_ms, bank_ms)[0])

    def request_bytes(self, request_id: int, decision_ms: int, bank_ms: int) -> bytes:
        """The seat's PlayRequest (a DecisionRequest), serialized, ready to send as is."""
        parts, size = self._decision_parts(request_id, decision_ms, bank_ms)
        parts[0] = DECISION_REQUEST + varint(size) + parts[0]
        return b"".join(parts)

    def request(self, request_id: int, decision_ms: int, bank_ms: int) -> pb.PlayRequest:
        """The seat's PlayRequest as a message (parsed from ``request_bytes``)."""
        return pb.PlayRequest.FromString(self.request_bytes(request_id, decision_ms, bank_ms))

    def _decision_parts(self, request_id: int, decision_ms: int,
                        bank_ms: int) -> tuple[list[bytes], int]:
        """The DecisionRequest's parts (request id and observation key first) and its size."""
        state = self.state
        obs = state.observation(self.seat)
        observation = self._observation(obs)
        legal = (legal_entries(obs.legal_actions, state.action_meaning)
                 if obs.legal_actions else b"")
        time_left = time_left_bytes(decision_ms, bank_ms)
        head = request_id_bytes(request_id) + OBSERVATION + varint(len(observation))
        return ([head, observation, legal, time_left],
                len(head) + len(observation) + len(legal) + len(time_left))

    def _observation(self, o: Observation) -> bytes:
        """The serialized Observation ``o`` (fields in field-number order)."""
        scores = o.scores
        return b"".join((
            self._game_seat,
            _TURNS[o.hand_number, o.dealer, o.phase, o.current_player],
            _HANDS[o.hand],
            _HAND_SIZES[o.hand_sizes],
            _POINTS[o.points],
            packed_doubles(SCORES, scores) if scores else b"",
            self._event_bytes(o.events),
            _VISIBLE_HANDS[o.visible_hands],
            _TRUMPS[o.trump_suit, o.trump_card, o.called_card],
            _TABLES[o.table],
            _TRICKS[o.trick],
            _STOCK_SIZES[o.stock_size],
            _TEAMMATES[o.teammates],
        ))

    def _event_bytes(self, events: tuple[Event, ...]) -> bytearray:
        """The serialized events of the seat's log, encoding only those not seen before."""
        count = self._count
        if count and (count > len(events) or (events[count - 1] is not self._last
                                              and events[count - 1] != self._last)):
            self._events, count = bytearray(), 0
        if len(events) > count:
            self._events += events_bytes(events, count)
            self._count = len(events)
            self._last = events[-1]
        return self._events
