"""MatchStart and MatchEnd: the game, its parameters and deck, and the result of a match."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games import Game, GameError, State, UnknownGameError, load_game
from arena.games.cards import Deck
from arena.games.params import ParamValue
from arena.protocol.card_values import card_values_message
from arena.protocol.errors import ProtocolError
from arena.protocol.reasons import to_wire
from arena.protocol.serialize import match_end_bytes
from arena.protocol.v1 import agent_pb2 as pb
from arena.protocol.version import PROTOCOL_VERSION
from arena.protocol.wire import LENGTH, VARINT, length_field, string_field, tag, varint_field
from arena.reasons import Reason


def parameter_message(name: str, value: ParamValue) -> pb.Parameter:
    """One game parameter with its typed value."""
    if isinstance(value, bool):
        return pb.Parameter(name=name, bool_value=value)
    if isinstance(value, int):
        return pb.Parameter(name=name, int_value=value)
    if isinstance(value, str):
        return pb.Parameter(name=name, string_value=value)
    raise ProtocolError(f"parameter {name!r} has a value of type {type(value).__name__}; "
                        "expected bool, int or str")


def params_from_message(parameters: Sequence[pb.Parameter]) -> dict[str, ParamValue]:
    """The parameters of a MatchStart as a dict; a parameter without a value is an error."""
    params: dict[str, ParamValue] = {}
    for parameter in parameters:
        which = parameter.WhichOneof("value")
        if which is None:
            raise ProtocolError(f"parameter {parameter.name!r} has no value")
        if parameter.name in params:
            raise ProtocolError(f"parameter {parameter.name!r} is given twice")
        params[parameter.name] = getattr(parameter, which)
    return params


def deck_message(deck: Deck) -> pb.Deck:
    """The deck with every card's codes and names, and the suit and rank names."""
    cards = [pb.Card(id=card, code=deck.short(card), symbol=deck.short(card, symbols=True),
                     name=deck.long_name(card, "en"), italian_name=deck.long_name(card, "it"),
                     suit=deck.suit(card), rank=deck.rank(card), copy=deck.copy(card))
             for card in deck.cards]
    return pb.Deck(name=deck.name, cards=cards, suits=deck.suit_names_en,
                   ranks=deck.rank_names_en)


START_CACHE_LIMIT = 256
"""Serialized per-game parts of MatchStart kept by game configuration; starts over beyond this."""
_start_cache: dict[tuple[object, ...], tuple[bytes, bytes, bytes, bytes]] = {}

# PlayRequest fields, and the MatchStart fields a match sets.
MATCH_START = tag(1, LENGTH)
MATCH_END = tag(3, LENGTH)
MATCH_ID = tag(2, LENGTH)
SEAT = tag(6, VARINT)
TIME_CONTROL = tag(10, LENGTH)
DECISION_MS = tag(1, VARINT)
BANK_MS = tag(2, VARINT)


def _game_key(game: Game) -> tuple[object, ...]:
    """What the per-game part of a MatchStart depends on."""
    return (game.id, game.num_players, tuple(game.params.items()), game.spec.rules_version)


def _game_start_parts(game: Game) -> tuple[bytes, bytes, bytes, bytes]:
    """The serialized MatchStart fields fixed by the game, cut where a match's own fields go:
    the protocol version (1); game, parameters and rules version (3-5); seats, teams and deck
    (7-9); the card values (11)."""
    key = _game_key(game)
    parts = _start_cache.get(key)
    if parts is None:
        if len(_start_cache) >= START_CACHE_LIMIT:
            _start_cache.clear()
        teams = game.teams() or ()
        parts = _start_cache[key] = (
            pb.MatchStart(protocol_version=PROTOCOL_VERSION).SerializeToString(),
            pb.MatchStart(game=game.id, parameters=[parameter_message(name, value)
                                                    for name, value in game.params.items()],
                          rules_version=game.spec.rules_version).SerializeToString(),
            pb.MatchStart(num_seats=game.num_players, teams=[pb.Team(seats=team)
                                                              for team in teams],
                          deck=deck_message(game.deck)).SerializeToString(),
            pb.MatchStart(card_values=card_values_message(game)).SerializeToString(),
        )
    return parts


def match_start_payload(game: Game, seat: int, match_id: str, decision_ms: int,
                        bank_ms: int) -> bytes:
    """The serialized PlayRequest carrying ``seat``'s MatchStart, ready to send as is (the
    bytes protobuf gives, from the game's cached parts)."""
    if not 0 <= seat < game.num_players:
        raise ProtocolError(f"seat {seat} is not a seat of {game!r} "
                            f"(0..{game.num_players - 1})")
    if decision_ms < 0 or bank_ms < 0:
        raise ProtocolError(f"negative time control: decision {decision_ms} ms, "
                            f"bank {bank_ms} ms")
    version, game_fields, table_fields, card_fields = _game_start_parts(game)
    clock = varint_field(DECISION_MS, decision_ms) + varint_field(BANK_MS, bank_ms)
    body = b"".join((version, string_field(MATCH_ID, match_id), game_fields,
                     varint_field(SEAT, seat), table_fields, length_field(TIME_CONTROL, clock),
                     card_fields))
    return length_field(MATCH_START, body)


def match_start_message(game: Game, seat: int, match_id: str, decision_ms: int,
                        bank_ms: int) -> pb.MatchStart:
    """The first message of a match for ``seat``: the game, every parameter, deck and clock."""
    payload = match_start_payload(game, seat, match_id, decision_ms, bank_ms)
    return pb.PlayRequest.FromString(payload).match_start


def game_from_match_start(message: pb.MatchStart) -> Game:
    """The game a MatchStart describes (its id, seat count and parameters)."""
    params: Mapping[str, ParamValue] = params_from_message(message.parameters)
    try:
        return load_game(message.game, players=message.num_seats, params=params)
    except UnknownGameError as error:
        raise ProtocolError(f"MatchStart names a game this engine does not have: {error}") from None
    except GameError as error:
        raise ProtocolError(f"MatchStart describes an invalid game: {error}") from None


def serialized_match_end(state: State, reasons: Sequence[Reason]) -> bytes:
    """The serialized last message of a match: returns, each seat's reason code, every event."""
    seats = state.game.num_players
    if len(reasons) != seats:
        raise ProtocolError(f"{len(reasons)} reason codes for {seats} seats")
    codes = []
    for seat, reason in enumerate(reasons):
        try:
            codes.append(to_wire(reason))
        except ProtocolError as error:
            raise ProtocolError(f"seat {seat}: {error}") from None
    return match_end_bytes(state.returns(), codes, state.event_entries())


def match_end_payload(match_end: bytes) -> bytes:
    """The serialized PlayRequest carrying a serialized MatchEnd, ready to send as is."""
    return length_field(MATCH_END, match_end)


def match_end_message(state: State, reasons: Sequence[Reason]) -> pb.MatchEnd:
    """The last message of a match: returns, each seat's reason code, and every event."""
    return pb.MatchEnd.FromString(serialized_match_end(state, reasons))
