"""The SDK's card values: points, trick strength, ``beats`` and ``trick_winner`` read from the
MatchStart, checked against the engine's tables and the tricks of real playouts."""

from __future__ import annotations

import pytest
from cardarena_sdk import NO_TRUMP, CardValues, MatchInfo, Request

from arena.games import load_game
from arena.games.registry import game_ids
from arena.protocol import RequestEncoder, match_start_message
from arena.protocol.v1 import agent_pb2 as pb
from tests.conformance.harness import playout
from tests.tricks import played_tricks

CUPS, COINS, CLUBS, SWORDS = range(4)
ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, JACK, KNIGHT, KING = range(10)


def card(rank: int, suit: int, copy: int = 0) -> int:
    """An Italian card id: ten ranks per suit, forty cards per copy."""
    return 40 * copy + 10 * suit + rank


def match_of(game_id: str, players: int | None = None, **params: object) -> MatchInfo:
    """The MatchInfo a bot gets at seat 0 of a game."""
    game = load_game(game_id, players=players, params=params or None)
    return MatchInfo(match_start_message(game, 0, "m", 1000, 0))


@pytest.mark.parametrize("game_id", game_ids())
def test_points_are_the_games_card_points(game_id: str) -> None:
    game = load_game(game_id)
    match = match_of(game_id)
    expected = game.card_points or (0,) * game.deck.size
    assert [match.points(card) for card in game.deck.cards] == list(expected)
    assert match.card_values.has_points == bool(game.card_points)
    assert match.card_values.points_total == (game.points_total or 0)


def test_points_of_a_few_cards_and_of_a_trick() -> None:
    briscola = match_of("briscola")
    assert [briscola.points(card(rank, COINS)) for rank in (ACE, THREE, KING, KNIGHT, JACK)] == \
        [11, 10, 4, 3, 2]
    assert briscola.card_values.points_of([card(ACE, CUPS), card(TWO, CUPS)]) == 11
    tressette = match_of("tressette")
    assert [tressette.points(card(rank, CUPS)) for rank in (ACE, TWO, KING, SEVEN)] == [3, 1, 1, 0]
    assert match_of("misere").points(5) == 0


def test_strength_orders_the_ranks_of_each_game() -> None:
    briscola = match_of("briscola")
    order = sorted(range(10), key=lambda rank: -briscola.strength(card(rank, CLUBS)))
    assert order == [ACE, THREE, KING, KNIGHT, JACK, SEVEN, SIX, FIVE, FOUR, TWO]
    tressette = match_of("tressette")
    order = sorted(range(10), key=lambda rank: -tressette.strength(card(rank, CLUBS)))
    assert order == [THREE, TWO, ACE, KING, KNIGHT, JACK, SEVEN, SIX, FIVE, FOUR]
    assert match_of("presidente").card_values.rank_strength(card(TWO, CUPS)) == 9
    assert match_of("scopa").card_values.capture_value(card(KING, SWORDS)) == 10


BEATS = [
    # (card, other, trump, led, beats)
    (card(TWO, SWORDS), card(ACE, CUPS), SWORDS, CUPS, True),      # a trump beats the led suit
    (card(ACE, CUPS), card(TWO, SWORDS), SWORDS, CUPS, False),     # ... and is not beaten by it
    (card(THREE, SWORDS), card(TWO, SWORDS), SWORDS, CUPS, True),  # trumps go by strength
    (card(ACE, CUPS), card(KING, CUPS), SWORDS, CUPS, True),       # so does the led suit
    (card(KING, CUPS), card(ACE, CUPS), SWORDS, CUPS, False),
    (card(FOUR, CUPS), card(ACE, CLUBS), SWORDS, CUPS, True),      # the led suit beats a third
    (card(ACE, CLUBS), card(FOUR, CUPS), SWORDS, CUPS, False),     # a third suit beats nothing
    (card(ACE, CLUBS), card(FOUR, COINS), SWORDS, CUPS, False),
    (card(ACE, CLUBS), card(FOUR, CLUBS), SWORDS, CUPS, False),    # not even in its own suit
    (card(TWO, SWORDS), card(ACE, CUPS), NO_TRUMP, CUPS, False),   # no trump: the led suit wins
    (card(ACE, CUPS), card(TWO, SWORDS), NO_TRUMP, CUPS, True),
]


@pytest.mark.parametrize(("played", "other", "trump", "led", "expected"), BEATS)
def test_beats_follows_trump_led_suit_and_strength(played: int, other: int, trump: int, led: int,
                                                   expected: bool) -> None:
    assert match_of("briscola").beats(played, other, trump, led) is expected


def test_of_two_identical_cards_the_later_wins() -> None:
    match = match_of("briscola-chiamata-due-mazzi")
    first, second = card(ACE, CUPS, copy=0), card(ACE, CUPS, copy=1)
    assert match.beats(second, first, NO_TRUMP, CUPS)
    assert match.beats(first, second, NO_TRUMP, CUPS)
    assert match.trick_winner([first, card(TWO, CUPS), second], NO_TRUMP) == 2
    assert match.trick_winner([second, first], SWORDS) == 1


def test_trick_winner_reads_the_led_suit_from_the_first_card() -> None:
    match = match_of("tressette")
    assert match.trick_winner([card(FOUR, CUPS), card(ACE, CLUBS), card(FIVE, CUPS)],
                              NO_TRUMP) == 2
    assert match.trick_winner([card(KING, CLUBS), card(THREE, CLUBS), card(TWO, CLUBS),
                               card(THREE, CUPS)], NO_TRUMP) == 1
    assert match_of("briscola").trick_winner([card(ACE, CUPS), card(TWO, SWORDS)], SWORDS) == 1


@pytest.mark.parametrize(("game_id", "players"), [
    ("briscola", 4), ("briscola-chiamata-due-mazzi", 8), ("madrasso", 4), ("tressette", 4),
    ("misere", 4), ("briscola-chiamata-carta", 5), ("tressette-toro", 6),
])
def test_trick_winner_agrees_with_every_trick_the_engine_plays(game_id: str,
                                                              players: int) -> None:
    game = load_game(game_id, players=players)
    match = MatchInfo(match_start_message(game, 0, "m", 1000, 0))
    tricks = 0
    for seed in (1, 2):
        for trick in played_tricks(playout(game, seed)):
            tricks += 1
            assert trick.players[match.trick_winner(trick.cards, trick.trump)] == trick.winner, \
                trick
    assert tricks > 0


@pytest.mark.parametrize("game_id", ["scopa", "vecchia", "presidente"])
def test_a_game_without_tricks_says_so(game_id: str) -> None:
    values = match_of(game_id).card_values
    assert not values.has_tricks
    with pytest.raises(ValueError, match=f"{game_id} has no tricks"):
        values.strength(0)
    with pytest.raises(ValueError, match="has no tricks"):
        values.beats(0, 1, NO_TRUMP, CUPS)
    with pytest.raises(ValueError, match="has no tricks"):
        values.trick_winner([0, 1], NO_TRUMP)


def test_bad_cards_are_value_errors() -> None:
    match = match_of("briscola")
    with pytest.raises(ValueError, match="card -1 is hidden"):
        match.points(-1)
    with pytest.raises(ValueError, match=r"card 40 is not in the \S+ deck \(ids 0 .. 39\)"):
        match.strength(40)
    with pytest.raises(ValueError, match="at least one card"):
        match.trick_winner([], NO_TRUMP)
    with pytest.raises(ValueError, match="capture values"):
        match.card_values.capture_value(0)
    with pytest.raises(ValueError, match=r"trump suit 7 is not -1 \(none\) or a suit \(0 .. 3\)"):
        match.beats(0, 1, 7, 0)
    with pytest.raises(ValueError, match=r"led suit -1 is not a suit \(0 .. 3\)"):
        match.beats(0, 1, NO_TRUMP, -1)


def test_a_table_that_does_not_cover_the_deck_is_refused() -> None:
    match = match_of("briscola")
    short = pb.CardValues(points=[1, 2, 3])
    with pytest.raises(ValueError, match=r"card_values\.points has 3 entries for a deck of 40"):
        CardValues.from_message(short, "briscola", match.deck)


def test_a_match_start_without_card_values_gets_them_from_the_engine() -> None:
    """An older arena sends no CardValues: the SDK takes them from the engine's game."""
    game = load_game("tressette", players=2)
    start = match_start_message(game, 1, "m", 1000, 0)
    old = pb.MatchStart()
    old.CopyFrom(start)
    old.ClearField("card_values")
    assert MatchInfo(old).card_values == MatchInfo(start).card_values
    assert MatchInfo(old).points(card(ACE, COINS)) == 3


def test_a_request_gives_points_and_strength_of_its_match() -> None:
    game = load_game("briscola")
    state = game.new_initial_state(3)
    seat = state.current_player()
    match = MatchInfo(match_start_message(game, seat, "m", 1000, 0))
    message = RequestEncoder(state, seat).request(1, 1000, 0).decision_request
    request = Request(message, match)
    hand = list(message.observation.hand)
    assert [request.points(held) for held in hand] == [game.card_points[held] for held in hand]
    assert [request.strength(held) for held in hand] == \
        [match.card_values.trick_strength_table[held] for held in hand]


def test_a_request_says_whether_a_card_would_take_the_trick_so_far() -> None:
    """In random 3-seat briscola playouts, ``takes_trick`` of each card played agrees with
    ``trick_winner`` of the trick so far and that card (checked against the engine's own
    winners above); a leading card takes the trick; a game without tricks is an error."""
    import random

    game = load_game("briscola", 3)
    checked = 0
    for seed in range(20):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            match = MatchInfo(match_start_message(game, seat, "m", 1000, 0))
            message = RequestEncoder(state, seat).request(1, 1000, 0).decision_request
            request = Request(message, match)
            played = [held for _, held in request.observation.trick]
            card = rng.choice(state.legal_actions())
            expected = match.trick_winner([*played, card], request.observation.trump_suit) \
                == len(played)
            assert request.takes_trick(card) is expected
            checked += bool(played)
            state.apply_action(card)
    assert checked > 100
    with pytest.raises(ValueError, match="has no tricks"):
        scopa = load_game("scopa")
        state = scopa.new_initial_state(1)
        seat = state.current_player()
        match = MatchInfo(match_start_message(scopa, seat, "m", 1000, 0))
        Request(RequestEncoder(state, seat).request(1, 1000, 0).decision_request,
                match).takes_trick(state.legal_actions()[0])
