"""Observations, events and legal actions encoded straight to protobuf bytes.

The bytes parse to the same messages that ``observation_to_message`` and
``legal_action_message`` build, fields in field-number order, without building message
objects. An observation is three parts: the fields before ``events`` (1-11), the events
(field 12, one entry each) and the fields after them (13-20); the parts concatenate.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from arena.games import ActionMeaning, Event, EventEntry, Observation
from arena.protocol.errors import ProtocolError
from arena.protocol.keys import EventKey, event_key
from arena.protocol.wire import (
    LENGTH,
    VARINT,
    length_field,
    packed_doubles,
    packed_varints,
    packed_zigzags,
    string_field,
    tag,
    varint,
    varint_field,
    zigzag,
    zigzag_field,
)

# Observation fields.
GAME: Final = tag(1, LENGTH)
SEAT: Final = tag(2, VARINT)
NUM_SEATS: Final = tag(3, VARINT)
HAND_NUMBER: Final = tag(4, VARINT)
DEALER: Final = tag(5, VARINT)
PHASE: Final = tag(6, LENGTH)
CURRENT_PLAYER: Final = tag(7, VARINT)
HAND: Final = tag(8, LENGTH)
HAND_SIZES: Final = tag(9, LENGTH)
POINTS: Final = tag(10, LENGTH)
SCORES: Final = tag(11, LENGTH)
EVENTS: Final = tag(12, LENGTH)
VISIBLE_HANDS: Final = tag(13, LENGTH)
TRUMP_SUIT: Final = tag(14, VARINT)
TRUMP_CARD: Final = tag(15, VARINT)
CALLED_CARD: Final = tag(16, VARINT)
TABLE: Final = tag(17, LENGTH)
TRICK: Final = tag(18, LENGTH)
STOCK_SIZE: Final = tag(19, VARINT)
TEAMMATES: Final = tag(20, LENGTH)
# Keys by field number and type, shared by Event, VisibleHand, TrickPlay, LegalAction, TimeLeft.
F1_VARINT: Final = tag(1, VARINT)
F2_VARINT: Final = tag(2, VARINT)
F2_LENGTH: Final = tag(2, LENGTH)
F3_LENGTH: Final = tag(3, LENGTH)
F4_LENGTH: Final = tag(4, LENGTH)
F5_VARINT: Final = tag(5, VARINT)
F6_VARINT: Final = tag(6, VARINT)
F7_VARINT: Final = tag(7, VARINT)
F8_VARINT: Final = tag(8, VARINT)
F9_LENGTH: Final = tag(9, LENGTH)
# DecisionRequest and PlayRequest fields.
REQUEST_ID: Final = tag(1, VARINT)
OBSERVATION: Final = tag(2, LENGTH)
LEGAL_ACTIONS: Final = tag(3, LENGTH)
TIME_LEFT: Final = tag(4, LENGTH)
DECISION_REQUEST: Final = tag(2, LENGTH)
# MatchEnd fields.
END_RETURNS: Final = tag(1, LENGTH)
END_REASONS: Final = tag(2, LENGTH)
END_EVENTS: Final = tag(3, LENGTH)


def _event_body(kind: int, seat: int, cards: Sequence[int], values: Sequence[int]) -> bytes:
    """An Event message's body (its fields)."""
    body = F1_VARINT + varint(kind) if kind else b""
    if seat:
        body += F2_VARINT + zigzag(seat)
    if cards:
        body += packed_zigzags(F3_LENGTH, cards)
    if values:
        body += packed_zigzags(F4_LENGTH, values)
    return body


def event_bytes(event: Event) -> bytes:
    """One ``events`` entry of an Observation (key, length and Event body)."""
    return length_field(EVENTS, _event_body(event.kind, event.seat, event.cards, event.values))


EVENT_CACHE_LIMIT: Final = 1 << 15
"""Encoded events kept by content (shared by every seat and match); the cache starts over
beyond this."""
_event_cache: Final[dict[EventKey, tuple[bytes, bytes]]] = {}
"""An event's entry in an Observation and in a MatchEnd, by ``event_key``. A deal's MatchEnd
lists every event unmasked, and nearly each of them went unmasked to some seat during the
deal."""


def _encoded(kind: int, seat: int, cards: tuple[int, ...],
             values: tuple[int, ...]) -> tuple[bytes, bytes]:
    """An event's ``events`` entry in an Observation (field 12) and in a MatchEnd (field 3),
    each distinct event encoded once."""
    key = event_key(kind, seat, cards, values)
    encoded = _event_cache.get(key)
    if encoded is None:
        body = _event_body(kind, seat, cards, values)
        size = varint(len(body))
        encoded = (EVENTS + size + body, END_EVENTS + size + body)
        if len(_event_cache) >= EVENT_CACHE_LIMIT:
            _event_cache.clear()
        _event_cache[key] = encoded
    return encoded


def events_bytes(events: Sequence[Event], start: int = 0) -> bytes:
    """The ``events`` entries of an Observation for the events from index ``start``."""
    parts = []
    for index in range(start, len(events)):
        event = events[index]
        parts.append(_encoded(event.kind, event.seat, event.cards, event.values)[0])
    return b"".join(parts)


def match_end_bytes(returns: Sequence[float], reasons: Sequence[int],
                    events: Sequence[EventEntry]) -> bytes:
    """A serialized MatchEnd: returns, reason codes and every event (``State.event_entries``)."""
    return b"".join((packed_doubles(END_RETURNS, returns), packed_varints(END_REASONS, reasons),
                     b"".join([_encoded(kind, seat, cards, values)[1]
                               for kind, seat, cards, values in events])))


def game_seat_bytes(game: str, seat: int, num_seats: int) -> bytes:
    """Fields 1-3 of an Observation, fixed for one seat of one match."""
    return (string_field(GAME, game) + varint_field(SEAT, seat)
            + varint_field(NUM_SEATS, num_seats))


@lru_cache(maxsize=256)
def phase_bytes(phase: str) -> bytes:
    """The ``phase`` field of an Observation."""
    return string_field(PHASE, phase)


def observation_head(observation: Observation, game_seat: bytes | None = None) -> bytes:
    """Fields 1-11 of an Observation; ``game_seat`` may give fields 1-3 already encoded."""
    o = observation
    if game_seat is None:
        game_seat = game_seat_bytes(o.game, o.seat, o.num_seats)
    parts = [game_seat]
    if o.hand_number:
        parts.append(HAND_NUMBER + varint(o.hand_number))
    if o.dealer:
        parts.append(DEALER + varint(o.dealer))
    if o.phase:
        parts.append(phase_bytes(o.phase))
    if o.current_player:
        parts.append(CURRENT_PLAYER + zigzag(o.current_player))
    if o.hand:
        parts.append(packed_zigzags(HAND, o.hand))
    if o.hand_sizes:
        parts.append(packed_varints(HAND_SIZES, o.hand_sizes))
    if o.points:
        parts.append(packed_zigzags(POINTS, o.points))
    if o.scores:
        parts.append(packed_doubles(SCORES, o.scores))
    return b"".join(parts)


def observation_tail(observation: Observation) -> bytes:
    """Fields 13-20 of an Observation."""
    o = observation
    parts = [length_field(VISIBLE_HANDS, varint_field(F1_VARINT, seat)
                          + packed_zigzags(F2_LENGTH, cards))
             for seat, cards in o.visible_hands]
    if o.trump_suit:
        parts.append(TRUMP_SUIT + zigzag(o.trump_suit))
    if o.trump_card:
        parts.append(TRUMP_CARD + zigzag(o.trump_card))
    if o.called_card:
        parts.append(CALLED_CARD + zigzag(o.called_card))
    if o.table:
        parts.append(packed_zigzags(TABLE, o.table))
    for seat, card in o.trick:
        body = (F1_VARINT + varint(seat) if seat else b"") + (
            F2_VARINT + zigzag(card) if card else b"")
        parts.append(TRICK + varint(len(body)) + body)
    if o.stock_size:
        parts.append(STOCK_SIZE + varint(o.stock_size))
    if o.teammates:
        parts.append(packed_varints(TEAMMATES, o.teammates))
    return b"".join(parts)


def observation_bytes(observation: Observation) -> bytes:
    """A whole serialized Observation message."""
    events = b"".join([event_bytes(event) for event in observation.events])
    return observation_head(observation) + events + observation_tail(observation)


def legal_action_bytes(wire_id: int, meaning: ActionMeaning) -> bytes:
    """One ``legal_actions`` entry of a DecisionRequest (key, length and LegalAction body)."""
    m = meaning
    body = b"".join((
        varint_field(F1_VARINT, wire_id),
        varint_field(F2_VARINT, m.kind),
        packed_zigzags(F3_LENGTH, m.cards),
        packed_zigzags(F4_LENGTH, m.captured),
        b"" if m.value is None else F5_VARINT + zigzag(m.value),
        zigzag_field(F6_VARINT, m.suit),
        zigzag_field(F7_VARINT, m.rank),
        zigzag_field(F8_VARINT, m.table),
        string_field(F9_LENGTH, m.label),
    ))
    return LEGAL_ACTIONS + varint(len(body)) + body


TIME_CACHE_LIMIT: Final = 1 << 12
"""Encoded ``time_left`` fields kept by value; the cache starts over beyond this."""
_time_cache: Final[dict[tuple[int, int], bytes]] = {}


def time_left_bytes(decision_ms: int, bank_ms: int) -> bytes:
    """The ``time_left`` field of a DecisionRequest."""
    key = (decision_ms, bank_ms)
    encoded = _time_cache.get(key)
    if encoded is None:
        body = (F1_VARINT + varint(decision_ms) if decision_ms else b"") + (
            F2_VARINT + varint(bank_ms) if bank_ms else b"")
        if len(_time_cache) >= TIME_CACHE_LIMIT:
            _time_cache.clear()
        encoded = _time_cache[key] = TIME_LEFT + varint(len(body)) + body
    return encoded


def request_id_bytes(request_id: int) -> bytes:
    """The ``request_id`` field of a DecisionRequest (a uint64)."""
    if request_id <= 0:
        if request_id == 0:
            return b""
        raise ProtocolError(f"request id {request_id} is negative; request ids are uint64")
    return REQUEST_ID + varint(request_id)
