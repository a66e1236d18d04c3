"""Table-driven rule tests for Briscola and Briscola a 31 (docs/games/briscola.md)."""

from __future__ import annotations

import pytest

from arena.games import IllegalActionError, InvalidParameterError, load_game
from arena.games.api import EventKind, State
from arena.games.briscola import DECLARE_31, SWAP_TRUMP
from arena.games.cards import HIDDEN, ITALIAN_40
from arena.games.tricks import trick_winner

C = ITALIAN_40.parse
SUIT = ITALIAN_40.suit_table()
STRENGTH = ITALIAN_40.per_card((9, 0, 8, 1, 2, 3, 4, 5, 6, 7))


def order_for(hands: list[str], trump: str, stock: str = "",
              removed: tuple[int, ...] = ()) -> list[int]:
    """A full 40-card deal order giving these hands (seat 0 first), face-up trump and stock top."""
    n = len(hands)
    parsed = [[C(text) for text in hand.split()] for hand in hands]
    head = [parsed[seat][k] for k in range(3) for seat in range(n)]
    head.append(C(trump))
    head.extend(C(text) for text in stock.split())
    rest = [card for card in range(40) if card not in head and card not in removed]
    # Removed cards (3 seats) are skipped by the deal wherever they are; put them last.
    return head + rest + list(removed)


def play(state: State, *cards: str) -> None:
    """Apply card plays given by name."""
    for text in cards:
        state.apply_action(C(text))


@pytest.mark.parametrize(
    ("cards", "trump", "winner"),
    [
        (["4C", "2C"], -1, 0),  # led suit: 4 beats 2
        (["2C", "3C"], -1, 1),  # 3 beats every card but the ace
        (["RC", "AC"], -1, 1),  # ace is highest
        (["AC", "2D"], -1, 0),  # another suit never wins without trump
        (["AC", "2D"], 1, 1),  # the lowest trump beats the ace of the led suit
        (["7D", "AC", "3D"], 1, 2),  # the highest trump wins
        (["FS", "CS", "RS", "7S"], 2, 2),  # no trump played: highest of the led suit
        (["4B", "AS", "3S", "5B"], 2, 3),  # trump led: a higher trump later wins
    ],
)
def test_trick_winner(cards: list[str], trump: int, winner: int) -> None:
    """The highest trump wins, else the highest card of the led suit."""
    assert trick_winner([C(c) for c in cards], SUIT, STRENGTH, trump) == winner


def test_deal_order_trump_and_first_lead() -> None:
    """Three cards each from the dealer's right; the next card is the trump; seat 0 leads."""
    game = load_game("briscola", 2)
    state = game.new_initial_state(0, deal=order_for(["AC 2C 3C", "4C 5C 6C"], "7D"))
    obs = state.observation(0)
    assert obs.hand == tuple(sorted(C(c) for c in ("AC", "2C", "3C")))
    assert state.observation(1).hand == tuple(sorted(C(c) for c in ("4C", "5C", "6C")))
    assert obs.trump_card == C("7D") and obs.trump_suit == 1
    assert state.current_player() == 0 and obs.dealer == 1
    assert obs.stock_size == 34


def test_no_obligation_to_follow_and_winner_draws_first() -> None:
    """Any card may be played; the trick winner draws the top card and leads."""
    game = load_game("briscola", 2)
    state = game.new_initial_state(0, deal=order_for(["AC 2C 3C", "4B 5B 2D"], "7D", "FS CS"))
    play(state, "AC")
    assert state.legal_actions() == sorted(C(c) for c in ("4B", "5B", "2D"))
    play(state, "2D")  # a trump takes the ace
    assert state.current_player() == 1
    assert C("FS") in state.observation(1).hand  # winner drew the top card
    assert C("CS") in state.observation(0).hand
    assert state.observation(1).points == (0, 11)


def test_last_draw_is_the_face_up_trump_and_public() -> None:
    """The face-up card is the last card drawn, and everybody sees who drew it."""
    game = load_game("briscola", 2)
    state = game.new_initial_state(3)
    while state.observation(0).stock_size > 0:
        state.apply_action(state.legal_actions()[0])
    draws = [e for e in state.observation(0).events if e.kind == EventKind.DRAW]
    last = draws[-1]
    assert last.cards == (state.observation(0).trump_card,)
    hidden_draws = [e for e in draws if e.seat == 1]
    assert any(e.cards == (HIDDEN,) for e in hidden_draws)


@pytest.mark.parametrize(
    ("players", "fix", "tricks", "unplayed"),
    [(3, "remove_2_bastoni", 13, 1), (3, "leave_last_card", 13, 1)],
)
def test_three_player_fixes(players: int, fix: str, tricks: int, unplayed: int) -> None:
    """Three seats: the 2 of bastoni is removed, or the last stock card is left on the table."""
    game = load_game("briscola", players, {"three_player_fix": fix})
    state = game.new_initial_state(11)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    events = state.full_events()
    assert sum(1 for e in events if e.kind == EventKind.TRICK) == tricks
    end = next(e for e in events if e.kind == EventKind.HAND_END)
    assert len(end.cards) == unplayed
    if fix == "remove_2_bastoni":
        assert end.cards == (C("2B"),)
        played = {e.cards[0] for e in events if e.kind == EventKind.PLAY}
        assert C("2B") not in played
    else:
        trump = next(e for e in events if e.kind == EventKind.TRUMP).cards[0]
        assert end.cards == (trump,)


def test_the_2_of_bastoni_is_set_aside_before_the_shuffle_and_recorded_last() -> None:
    """Three seats with the 2 of bastoni removed: the recorded order lists it last; injected
    back (where it is last, or anywhere else) it deals the same hands."""
    game = load_game("briscola", 3)
    for seed in range(20):
        state = game.new_initial_state(seed)
        order = state.deals()[0]
        assert sorted(order) == list(range(40)) and order[-1] == C("2B")
        again = game.new_initial_state(seed, deal=list(order))
        moved = [C("2B"), *order[:-1]]
        elsewhere = game.new_initial_state(seed, deal=moved)
        for other in (again, elsewhere):
            assert other.observation(0) == state.observation(0)
            assert other.full_events() == state.full_events()


def finish(state: State) -> None:
    """Play the lowest legal card until the match ends."""
    while not state.is_terminal():
        state.apply_action(min(a for a in state.legal_actions() if a < DECLARE_31))


def test_four_seats_play_in_pairs_and_score_as_pairs() -> None:
    """Seats 0+2 and 1+3 are partners; both partners get the side's result."""
    game = load_game("briscola", 4)
    assert game.teams() == ((0, 2), (1, 3))
    state = game.new_initial_state(5)
    assert state.observation(0).teammates == (2,)
    finish(state)
    returns = state.returns()
    assert returns[0] == returns[2] and returns[1] == returns[3]
    assert sum(returns) == 0
    end = next(e for e in state.full_events() if e.kind == EventKind.HAND_END)
    side = end.values[0] + end.values[2]
    expected = 0 if side == 60 else (1 if side > 60 else -1)
    assert returns[0] == expected


def test_partner_hand_shown_when_stock_empty() -> None:
    """With the option on, partners see each other's hand once the stock is empty."""
    game = load_game("briscola", 4, {"show_partner_hand_when_stock_empty": True})
    state = game.new_initial_state(2)
    assert state.observation(0).visible_hands == ()
    while state.observation(0).stock_size:
        state.apply_action(state.legal_actions()[0])
    obs = state.observation(0)
    assert obs.visible_hands == ((2, state.observation(2).hand),)
    plain = load_game("briscola", 4).new_initial_state(2)
    while plain.observation(0).stock_size:
        plain.apply_action(plain.legal_actions()[0])
    assert plain.observation(0).visible_hands == ()


@pytest.mark.parametrize(
    ("points", "expected"),
    [((61, 59), [1, -1]), ((60, 60), [0, 0]), ((59, 61), [-1, 1]), ((120, 0), [1, -1])],
)
def test_two_seat_outcome(points: tuple[int, int], expected: list[int]) -> None:
    """61 wins, 60-60 is a draw."""
    from arena.games.outcomes import pair_outcome

    winner = None if points[0] == points[1] else (0 if points[0] > points[1] else 1)
    assert pair_outcome(winner, 2, (0, 1)) == expected


@pytest.mark.parametrize(
    ("winners", "expected"),
    [([0], [2, -1, -1]), ([0, 2], [1, -2, 1]), ([0, 1, 2], [0, 0, 0])],
)
def test_three_seat_outcome(winners: list[int], expected: list[int]) -> None:
    """Each of k winners gets 3-k, each loser -k: zero-sum."""
    from arena.games.outcomes import side_outcome

    assert side_outcome(winners, 3) == expected


def test_matches_rotate_the_dealer_and_sum_hands() -> None:
    """A match of several hands moves the dealer to the right each hand."""
    game = load_game("briscola", 3, {"hands": 3})
    state = game.new_initial_state(9)
    finish(state)
    starts = [e for e in state.full_events() if e.kind == EventKind.HAND_START]
    assert [e.seat for e in starts] == [2, 0, 1]
    scores = [e.values for e in state.full_events() if e.kind == EventKind.SCORE]
    assert len(scores) == 3
    assert state.returns() == [float(sum(s[i] for s in scores)) for i in range(3)]


def test_declare_31_claims() -> None:
    """A true claim wins at once; a false claim loses at once; both end the hand."""
    game = load_game("briscola-31", 2)
    deal = order_for(["AC 3C AD", "RC 5D 6D"], "7S", "3D 4B 5B 6B")
    state = game.new_initial_state(0, deal=deal)
    play(state, "AC", "RC", "3C", "5D")  # seat 0: 15 + 10 = 25
    true_claim = state.clone()
    play(true_claim, "AD", "6D")  # seat 0: 36
    assert true_claim.current_player() == 0
    true_claim.apply_action(DECLARE_31)
    assert true_claim.is_terminal() and true_claim.returns() == [1.0, -1.0]
    declare = [e for e in true_claim.full_events() if e.kind == EventKind.DECLARE]
    assert declare[0].values == (36,)
    false_claim = state.clone()
    false_claim.apply_action(DECLARE_31)  # 25 < 31
    assert false_claim.is_terminal() and false_claim.returns() == [-1.0, 1.0]


def test_declare_31_false_claim_with_three_seats() -> None:
    """With three seats a false claim makes both others win."""
    game = load_game("briscola-31", 3)
    state = game.new_initial_state(4)
    state.apply_action(DECLARE_31)
    assert state.returns() == [-2.0, 1.0, 1.0]


def test_nobody_declares_normal_end() -> None:
    """When nobody declares, the hand ends as in Briscola."""
    game = load_game("briscola-31", 2)
    state = game.new_initial_state(8)
    finish(state)
    end = next(e for e in state.full_events() if e.kind == EventKind.HAND_END)
    a, b = end.values
    assert state.returns() == ([0.0, 0.0] if a == b else [1.0, -1.0] if a > b else [-1.0, 1.0])


def test_trump_swap() -> None:
    """The 7 of trump can be swapped for the face-up card while the stock has other cards."""
    game = load_game("briscola", 2, {"trump_swap": "seven"})
    deal = order_for(["7D 2C 3C", "4C 5C 6C"], "AD")
    state = game.new_initial_state(0, deal=deal)
    assert SWAP_TRUMP in state.legal_actions()
    plain = load_game("briscola", 2).new_initial_state(0, deal=deal)
    assert SWAP_TRUMP not in plain.legal_actions()
    state.apply_action(SWAP_TRUMP)
    obs = state.observation(0)
    assert C("AD") in obs.hand and C("7D") not in obs.hand
    assert obs.trump_card == C("7D") and state.current_player() == 0
    assert SWAP_TRUMP not in state.legal_actions()


def test_illegal_action_names_it_and_leaves_state_unchanged() -> None:
    """An illegal action raises with the action and the legal set; nothing changes."""
    game = load_game("briscola", 2)
    state = game.new_initial_state(1)
    before = state.observation(0)
    illegal = next(c for c in range(40) if c not in state.legal_actions())
    with pytest.raises(IllegalActionError) as error:
        state.apply_action(illegal)
    assert ITALIAN_40.short(illegal) in str(error.value)
    assert "legal actions" in str(error.value)
    assert state.observation(0) == before and state.history() == []
    with pytest.raises(IllegalActionError):
        state.apply_action(DECLARE_31)


@pytest.mark.parametrize(
    ("game_id", "players", "params", "fragment"),
    [
        ("briscola", 5, {}, "valid seat counts: 2, 3, 4"),
        ("briscola", 2, {"hands": 0}, "hands=0"),
        ("briscola", 2, {"trump_swap": "ace"}, "one of none, seven, two"),
        ("briscola", 2, {"colour": "red"}, "unknown parameter 'colour'"),
        ("briscola-31", 3, {"three_player_fix": "x"}, "remove_2_bastoni"),
    ],
)
def test_bad_parameters(game_id: str, players: int, params: dict[str, object],
                        fragment: str) -> None:
    """Bad seat counts and parameters name the problem and the valid choices."""
    with pytest.raises(InvalidParameterError) as error:
        load_game(game_id, players, params)  # type: ignore[arg-type]
    assert fragment in str(error.value)
