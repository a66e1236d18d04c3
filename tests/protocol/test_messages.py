"""MatchStart and MatchEnd messages, wire action ids, and their errors."""

from __future__ import annotations

import pytest

from arena.games import get_spec, load_game
from arena.games.params import ParamValue
from arena.protocol import (
    PROTOCOL_VERSION,
    MessageEncoder,
    ProtocolError,
    RequestEncoder,
    card_values_message,
    deck_message,
    engine_action,
    event_to_message,
    game_from_match_start,
    match_end_message,
    match_end_payload,
    match_start_message,
    match_start_payload,
    observation_from_message,
    serialized_match_end,
    wire_action,
)
from arena.protocol.v1 import agent_pb2 as pb
from arena.reasons import Reason
from tests.conformance.harness import playout


def test_match_start_names_the_match_the_seat_and_the_clock() -> None:
    """Protocol version, match id, game, rules version, seat, seat count and time control."""
    game = load_game("briscola", 2)
    message = match_start_message(game, 1, "m-42", 1500, 30_000)
    assert message.protocol_version == PROTOCOL_VERSION == "cardarena.v1"
    assert (message.match_id, message.game, message.seat, message.num_seats) == (
        "m-42", "briscola", 1, 2)
    assert message.rules_version == get_spec("briscola").rules_version != ""
    assert (message.time_control.decision_ms, message.time_control.bank_ms) == (1500, 30_000)


def test_match_start_lists_every_parameter_with_its_type() -> None:
    """Every parameter, defaults included, with a bool, int or string value as the spec has."""
    game = load_game("misere", 4, {"hand_size": 7})
    message = match_start_message(game, 0, "m", 1000, 0)
    values = {p.name: (p.WhichOneof("value"), getattr(p, p.WhichOneof("value")))
              for p in message.parameters}
    assert values == {
        "rank_order": ("string_value", "bridge"),
        "must_trump_if_void": ("bool_value", False),
        "misere_fail": ("string_value", "per_trick"),
        "hook_in_blind": ("bool_value", True),
        "hand_size": ("int_value", 7),
    }
    assert {p.name for p in message.parameters} == {p.name for p in get_spec("misere").params}


def test_match_start_gives_public_teams_only() -> None:
    """Fixed partnerships are listed; a game with hidden partners lists none."""
    teams = match_start_message(load_game("briscola", 4), 2, "m", 1000, 0).teams
    assert [list(team.seats) for team in teams] == [[0, 2], [1, 3]]
    assert not match_start_message(load_game("briscola-chiamata", 5), 0, "m", 1000, 0).teams
    assert not match_start_message(load_game("briscola", 2), 0, "m", 1000, 0).teams


def test_match_start_deck_names_every_card() -> None:
    """The Italian deck: each card's id, codes, English and Italian names, suit, rank, copy."""
    deck = match_start_message(load_game("briscola", 2), 0, "m", 1000, 0).deck
    assert deck.name == "italian-40"
    assert [card.id for card in deck.cards] == list(range(40))
    seven = deck.cards[16]
    assert (seven.code, seven.symbol, seven.name, seven.italian_name) == (
        "7D", "7♦", "seven of coins", "sette di denari")
    assert (seven.suit, seven.rank, seven.copy) == (1, 6, 0)
    assert list(deck.suits) == ["cups", "coins", "clubs", "swords"]
    assert list(deck.ranks)[:3] == ["ace", "two", "three"] and deck.ranks[9] == "king"


def test_match_start_deck_of_two_decks_and_french_deck() -> None:
    """Copies are numbered and lettered; the French deck has its own names."""
    doubled = match_start_message(load_game("briscola-chiamata-due-mazzi", 8), 0, "m", 1, 0).deck
    assert doubled.name == "italian-80" and len(doubled.cards) == 80
    card = doubled.cards[56]
    assert (card.code, card.copy, card.suit, card.rank) == ("7Db", 1, 1, 6)
    assert card.name == "seven of coins (b)"
    french = match_start_message(load_game("misere", 4), 0, "m", 1, 0).deck
    assert french.name == "french-52" and len(french.cards) == 52
    ten = french.cards[2 * 13 + 8]
    assert (ten.code, ten.symbol, ten.name, ten.italian_name) == (
        "TH", "T♥", "ten of hearts", "dieci di cuori")
    assert french.ranks[12] == "ace" and french.suits[0] == "clubs"


def test_match_start_rejects_a_seat_outside_the_game() -> None:
    """A seat number the game does not have is an error naming it."""
    with pytest.raises(ProtocolError, match="seat 4"):
        match_start_message(load_game("briscola", 4), 4, "m", 1000, 0)
    with pytest.raises(ProtocolError, match="negative time control"):
        match_start_payload(load_game("briscola", 4), 0, "m", -1, 0)


@pytest.mark.parametrize(("game_id", "players", "params", "seat", "match_id", "clock"), [
    ("briscola", 2, {}, 0, "", (0, 0)),
    ("briscola", 4, {"hands": 3, "trump_swap": "seven"}, 3, "m-1", (1000, 0)),
    ("misere", 4, {"hand_size": 5}, 1, "a match id with ünicode", (0, 30_000)),
    ("briscola-chiamata-due-mazzi", 8, {}, 7, "x" * 200, (2**40, 2**33)),
    ("vecchia", 5, {}, 2, "m", (1, 1)),
    ("scopa", 2, {}, 1, "m", (1, 1)),
])
def test_match_start_payload_is_protobufs_serialization(
        game_id: str, players: int, params: dict[str, ParamValue], seat: int, match_id: str,
        clock: tuple[int, int]) -> None:
    """The MatchStart PlayRequest built from cached parts is what protobuf writes for it."""
    game = load_game(game_id, players, params)
    teams = [pb.Team(seats=team) for team in game.teams() or ()]
    kinds = {bool: "bool_value", int: "int_value", str: "string_value"}
    parameters = [pb.Parameter(name=name, **{kinds[type(value)]: value})
                  for name, value in game.params.items()]
    expected = pb.PlayRequest(match_start=pb.MatchStart(
        protocol_version=PROTOCOL_VERSION, match_id=match_id, game=game.id,
        parameters=parameters, rules_version=game.spec.rules_version, seat=seat,
        num_seats=players, teams=teams, deck=deck_message(game.deck),
        time_control=pb.TimeControl(decision_ms=clock[0], bank_ms=clock[1]),
        card_values=card_values_message(game)))
    for _ in range(2):
        assert match_start_payload(game, seat, match_id, *clock) == expected.SerializeToString()


@pytest.mark.parametrize(("game_id", "players", "params"), [
    ("briscola", 4, {"hands": 3, "trump_swap": "seven"}),
    ("misere", 4, {"hand_size": 5, "hook_in_blind": False}),
    ("briscola-chiamata", 6, {}),
])
def test_game_from_match_start_rebuilds_the_game(game_id: str, players: int,
                                                 params: dict[str, ParamValue]) -> None:
    """The game a MatchStart describes has the same id, seats and parameters."""
    game = load_game(game_id, players, params)
    message = pb.MatchStart.FromString(
        match_start_message(game, 0, "m", 1000, 0).SerializeToString())
    again = game_from_match_start(message)
    assert (again.id, again.num_players, again.params) == (game.id, players, game.params)


def test_game_from_match_start_rejects_an_unknown_game() -> None:
    """An unknown game id is a ProtocolError naming it."""
    message = pb.MatchStart(game="no-such-game", num_seats=2)
    with pytest.raises(ProtocolError, match="no-such-game"):
        game_from_match_start(message)


def test_game_from_match_start_rejects_bad_parameters() -> None:
    """A bad value, an unknown parameter, a parameter without value or repeated: errors."""
    def start(*parameters: pb.Parameter, seats: int = 2) -> pb.MatchStart:
        """A briscola MatchStart with ``parameters``."""
        return pb.MatchStart(game="briscola", num_seats=seats, parameters=parameters)

    with pytest.raises(ProtocolError, match="hands"):
        game_from_match_start(start(pb.Parameter(name="hands", string_value="many")))
    with pytest.raises(ProtocolError, match="colour"):
        game_from_match_start(start(pb.Parameter(name="colour", bool_value=True)))
    with pytest.raises(ProtocolError, match="'hands' has no value"):
        game_from_match_start(start(pb.Parameter(name="hands")))
    twice = pb.Parameter(name="hands", int_value=2)
    with pytest.raises(ProtocolError, match="given twice"):
        game_from_match_start(start(twice, twice))
    with pytest.raises(ProtocolError, match="7 players"):
        game_from_match_start(start(seats=7))


def test_wire_ids_are_engine_actions_plus_one() -> None:
    """0 is never an action; engine action a travels as a + 1 and comes back as a."""
    assert [wire_action(a) for a in (0, 1, 39)] == [1, 2, 40]
    assert [engine_action(w) for w in (1, 2, 40)] == [0, 1, 39]
    with pytest.raises(ProtocolError, match="0 is the unset value"):
        engine_action(0)
    with pytest.raises(ProtocolError, match="-3"):
        engine_action(-3)
    with pytest.raises(ProtocolError, match="-1"):
        wire_action(-1)
    assert issubclass(ProtocolError, ValueError)


def test_match_end_gives_returns_reasons_and_every_event() -> None:
    """Returns, one reason per seat, and the full event log, nothing hidden."""
    state = playout(load_game("briscola", 2), 3)
    reasons = [Reason.OK, Reason.TIMEOUT]
    message = pb.MatchEnd.FromString(match_end_message(state, reasons).SerializeToString())
    assert list(message.returns) == state.returns()
    assert list(message.reasons) == [pb.REASON_CODE_OK, pb.REASON_CODE_TIMEOUT]
    assert len(message.events) == len(state.full_events())
    wrapped = pb.Observation(events=message.events)
    assert observation_from_message(wrapped).events == state.full_events()


@pytest.mark.parametrize(("game_id", "players"), [("briscola", 2), ("tressette", 4),
                                                 ("scopa", 2)])
def test_serialized_match_end_is_protobufs_serialization(game_id: str, players: int) -> None:
    """The MatchEnd bytes are those protobuf writes for the message, twice in a row."""
    state = playout(load_game(game_id, players), 5)
    reasons = [Reason.OK] * (players - 1) + [Reason.CRASH]
    codes = [pb.REASON_CODE_OK] * (players - 1) + [pb.REASON_CODE_CRASH]
    expected = pb.MatchEnd(returns=state.returns(), reasons=codes,
                           events=[event_to_message(event) for event in state.full_events()])
    for _ in range(2):
        assert serialized_match_end(state, reasons) == expected.SerializeToString()
    payload = match_end_payload(serialized_match_end(state, reasons))
    assert payload == pb.PlayRequest(match_end=expected).SerializeToString()


def test_match_end_rejects_bad_reasons() -> None:
    """A reason per seat is required, and each must be a ``Reason``."""
    state = playout(load_game("briscola", 2), 3)
    with pytest.raises(ProtocolError, match="1 reason codes for 2 seats"):
        match_end_message(state, [Reason.OK])
    with pytest.raises(ProtocolError, match="seat 1: 0 is not a reason code"):
        match_end_message(state, [Reason.OK, pb.REASON_CODE_UNSPECIFIED])  # type: ignore[list-item]
    with pytest.raises(ProtocolError, match="seat 0: 99"):
        match_end_message(state, [99, Reason.OK])  # type: ignore[list-item]


def test_encoder_rejects_a_bad_seat_and_a_negative_request_id() -> None:
    """An encoder, fast or reference, needs a seat of the game; request ids are uint64."""
    state = load_game("briscola", 2).new_initial_state(1)
    for encoder in (RequestEncoder, MessageEncoder):
        with pytest.raises(ProtocolError, match="seat 2"):
            encoder(state, 2)
        with pytest.raises(ProtocolError, match="request id -1"):
            encoder(state, 0).request_bytes(-1, 1000, 0)


def test_encoder_request_carries_id_time_and_legal_ids() -> None:
    """The request's id, time left, and legal ids (engine actions + 1) are as given."""
    state = load_game("briscola", 2).new_initial_state(1)
    seat = state.current_player()
    request = RequestEncoder(state, seat).request(2**40, 1200, 55_000).decision_request
    assert request.request_id == 2**40
    assert (request.time_left.decision_ms, request.time_left.bank_ms) == (1200, 55_000)
    assert [a.id for a in request.legal_actions] == [a + 1 for a in state.legal_actions()]
    assert request.observation.seat == seat


def test_match_start_messages_are_independent_copies() -> None:
    """Changing one MatchStart leaves the next one of the same game as it should be."""
    game = load_game("briscola", 2)
    first = match_start_message(game, 0, "m-1", 1000, 0)
    first.deck.cards[0].name = "changed"
    first.parameters.add(name="extra", int_value=1)
    second = match_start_message(game, 1, "m-2", 0, 0)
    assert second.deck.cards[0].name != "changed"
    assert "extra" not in {parameter.name for parameter in second.parameters}
    assert (second.match_id, second.seat) == ("m-2", 1)
    assert second.HasField("time_control")
