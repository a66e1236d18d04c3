"""Scopa and Scopone rules, table-driven: dealing, captures, scope, scoring and the match."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from arena.games import EventKind, GameError, IllegalActionError, load_game
from arena.games.cards import ITALIAN_40
from arena.games.scopa import ScopaState
from arena.games.scopa_captures import (
    CAPTURE_SETS,
    NUM_ACTIONS,
    TAKE_ALL,
    VALUE,
    VALUE_KEY,
    capture_action,
    capture_offsets,
    decode,
    reference_offsets,
    set_sums,
    take_all_action,
)
from arena.games.scopa_scoring import (
    ScoringRules,
    hand_points,
    mask_points,
    napola,
    primiera,
)


def card(name: str) -> int:
    """A card id from its compact name."""
    return ITALIAN_40.parse(name)


def cards(text: str) -> list[int]:
    """Card ids from space-separated names."""
    return [card(name) for name in text.split()]


def order_for(n: int, hands: list[str], table: str = "") -> list[int]:
    """A deal order giving seat s ``hands[s]`` (dealt one at a time from seat 0) and the table."""
    dealt = [cards(hand) for hand in hands]
    size = len(dealt[0])
    order = [dealt[s][k] for k in range(size) for s in range(n)]
    order += cards(table)
    order += [c for c in range(40) if c not in order]
    return order


def position(game_id: str, n: int, hands: list[str], table: str, params: dict[str, object]
             | None = None, stock: bool = True) -> ScopaState:
    """A state with the given hands (seat 0 to act) and table; no stock left unless ``stock``."""
    game = load_game(game_id, n, params or {})  # type: ignore[arg-type]
    state = game.new_initial_state(1)
    assert isinstance(state, ScopaState)
    state._hands = [sorted(cards(hand)) for hand in hands]
    state._set_table(sorted(cards(table)))
    in_play = {c for hand in state._hands for c in hand} | set(state._table())
    state._order = [c for c in range(40) if c not in in_play] if stock else []
    state._drawn = 0
    state._current = 0
    state._legal = None
    return state


def legal_names(state: ScopaState) -> list[str]:
    """The legal actions as strings, in id order."""
    return [state.action_to_string(action) for action in state.legal_actions()]


CAPTURE_CASES = [
    # hand, table, params, legal action names (in action id order)
    ("7D", "7C 3S 4B", {}, ["7D x 7C"]),
    ("5D", "5C 5S 2B", {}, ["5D x 5C", "5D x 5S"]),
    ("7D", "2C 5S 3B 4D", {}, ["7D x 2C+5S", "7D x 4D+3B"]),
    ("7D", "AC 2S 4B 3D", {}, ["7D x 3D+4B", "7D x AC+4B+2S"]),
    ("7D", "AC 2S 4B 3D", {"min_cards_capture": True}, ["7D x 3D+4B"]),
    ("RD 2C", "FS", {}, ["2C", "RD"]),
    ("3D 2C", "AS 2S", {}, ["2C x 2S", "3D x AS+2S"]),
    ("AD", "3C 4S", {"asso_piglia_tutto": True}, ["AD x all (3C+4S)"]),
    ("AD", "AC 4S", {"asso_piglia_tutto": True}, ["AD x AC"]),
    ("AD", "", {"asso_piglia_tutto": True}, ["AD"]),
    ("AD", "3C 4S", {}, ["AD"]),
]


@pytest.mark.parametrize(("hand", "table", "params", "expected"), CAPTURE_CASES)
def test_capture_choices(hand: str, table: str, params: dict[str, object],
                         expected: list[str]) -> None:
    """Equal card first, sums otherwise, capture compulsory, options applied."""
    state = position("scopa", 2, [hand, "4C"], table, params)
    assert sorted(legal_names(state)) == sorted(expected)
    assert state.legal_actions() == sorted(state.legal_actions())


def test_action_encoding_is_stable_and_named() -> None:
    """Actions name the card and the set; the set table is fixed; take-all is its own code."""
    action = capture_action(card("7D"), tuple(sorted(cards("3C 4S"))))
    assert decode(action, []) == (card("7D"), tuple(sorted(cards("3C 4S"))))
    assert capture_action(card("7D"), ()) == card("7D")
    assert len(CAPTURE_SETS) == 4050 and CAPTURE_SETS[0] == (0,)
    assert take_all_action(card("AD")) // 40 == TAKE_ALL
    assert NUM_ACTIONS == 40 * (TAKE_ALL + 1)
    state = position("scopa", 2, ["7D", "4C"], "3C 4S")
    assert legal_names(state) == ["7D x 3C+4S"]
    with pytest.raises(ValueError, match="not a scopa action"):
        decode(NUM_ACTIONS, [])


def test_scopa_counts_except_on_the_last_play() -> None:
    """A sweep scores 1, but not on the last play of the hand unless the option says so."""
    for params, last, expected in [({}, False, 1), ({}, True, 0),
                                   ({"scopa_on_last_play": True}, True, 1)]:
        state = position("scopa", 2, ["7D", "" if last else "4C"], "3C 4S", params,
                         stock=not last)
        state.apply_action(state.legal_actions()[0])
        capture = next(e for e in state.full_events() if e.kind == EventKind.CAPTURE)
        assert capture.values == (expected,)
        assert capture.cards == (*sorted(cards("3C 4S")), card("7D"))


def test_asso_piglia_tutto_is_no_scopa() -> None:
    """An ace taking the whole table scores no scopa."""
    state = position("scopa", 2, ["AD", "4C"], "3C 4S", {"asso_piglia_tutto": True})
    state.apply_action(state.legal_actions()[0])
    capture = [e for e in state.full_events() if e.kind == EventKind.CAPTURE][-1]
    assert capture.values == (0,) and state.observation(0).table == ()


@pytest.mark.parametrize(("params", "taker"), [({}, 1), ({"last_cards_to_dealer": True}, 3)])
def test_leftover_table_cards(params: dict[str, object], taker: int) -> None:
    """The table left at the end goes to the last taker (or the dealer, as an option)."""
    state = position("scopone", 4, ["2D", "5C", "FD", "CC"], "5S RB", params, stock=False)
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    captures = [e for e in state.full_events() if e.kind == EventKind.CAPTURE]
    assert captures[0].seat == 1
    assert captures[-1].seat == taker
    assert sorted(captures[-1].cards) == sorted(cards("2D RB FD CC"))
    end = next(e for e in state.full_events() if e.kind == EventKind.HAND_END)
    assert end.cards == ()


@pytest.mark.parametrize(("game_id", "n", "params", "hand", "table", "stock"), [
    ("scopa", 2, {}, 3, 4, 30),
    ("scopa", 3, {}, 3, 4, 27),
    ("scopone", 4, {}, 10, 0, 0),
    ("scopone", 4, {"classic": True}, 9, 4, 0),
])
def test_deal_sizes(game_id: str, n: int, params: dict[str, object], hand: int, table: int,
                    stock: int) -> None:
    """Hand, table and stock sizes of the first deal; seat 0 (the dealer's right) plays first."""
    state = load_game(game_id, n, params).new_initial_state(3)  # type: ignore[arg-type]
    observation = state.observation(0)
    assert observation.hand_sizes == (hand,) * n
    assert len(observation.table) == table and observation.stock_size == stock
    assert state.current_player() == 0 and observation.dealer == n - 1


def test_deal_order_is_one_at_a_time_from_the_dealers_right() -> None:
    """Injected deals reach the seats one card at a time, then the table."""
    order = order_for(2, ["AC 2C 3C", "AS 2S 3S"], "4D 5D 6D 7D")
    state = load_game("scopa", 2).new_initial_state(0, deal=order)
    assert state.observation(0).hand == tuple(cards("AC 2C 3C"))
    assert state.observation(1).hand == tuple(cards("AS 2S 3S"))
    assert state.observation(1).table == tuple(cards("4D 5D 6D 7D"))


def test_three_kings_on_the_table_redeal() -> None:
    """A table with three kings is thrown in and dealt again from the next order."""
    kings = order_for(2, ["AC 2C 3C", "AS 2S 3S"], "RC RD RB 7D")
    fine = order_for(2, ["AC 2C 3C", "AS 2S 3S"], "4D 5D 6D 7D")
    state = load_game("scopa", 2).new_initial_state(0, deal=[kings, fine])
    kinds = [e.kind for e in state.full_events()]
    assert kinds.count(EventKind.REDEAL) == 1
    assert state.observation(0).table == tuple(cards("4D 5D 6D 7D"))
    assert len(state.deals()) == 2


def test_more_cards_are_dealt_when_hands_are_empty() -> None:
    """After three plays each, three more cards each come from the stock."""
    state = load_game("scopa", 2).new_initial_state(4)
    for _ in range(6):
        state.apply_action(state.legal_actions()[0])
    assert state.observation(0).hand_sizes == (3, 3)
    assert state.observation(0).stock_size == 24


EVENS = " ".join(ITALIAN_40.short(c) for c in range(0, 40, 2))
ODDS = " ".join(ITALIAN_40.short(c) for c in range(1, 40, 2))
COPPE_DENARI_AB = " ".join(ITALIAN_40.short(c) for c in range(20)) + " AB"
BASTONI_SPADE = " ".join(ITALIAN_40.short(c) for c in range(21, 40))

SCORE_CASES = [
    # piles per side, scope per side, rules, expected game points per side
    ([EVENS, ODDS], [0, 0], ScoringRules(), [2, 0]),  # 20-20 and 5-5 tie; settebello, primiera
    ([COPPE_DENARI_AB, BASTONI_SPADE], [2, 0], ScoringRules(), [5, 0]),  # no primiera at all
    (["AD 2D 3D 4D", "7D"], [0, 0], ScoringRules(napola=True), [6, 1]),
    (["AD 2D 4D", "7D"], [0, 0], ScoringRules(napola=True), [2, 1]),
    (["RD", "7D"], [0, 0], ScoringRules(re_bello=True), [1, 1]),
    (["RD", "7D"], [0, 0], ScoringRules(), [0, 1]),
    (["AD 2D", "7D", "3D"], [0, 1, 0], ScoringRules(), [2, 2, 0]),
    (["AD", "7D", "3D"], [0, 0, 3], ScoringRules(), [0, 1, 3]),
]


@pytest.mark.parametrize(("piles", "scope", "rules", "expected"), SCORE_CASES)
def test_hand_points(piles: list[str], scope: list[int], rules: ScoringRules,
                     expected: list[int]) -> None:
    """Carte, denari, settebello, primiera, scope, napola and re bello; ties give nothing."""
    assert hand_points([cards(names) for names in piles], scope, rules) == expected


@pytest.mark.parametrize(("names", "value"), [
    ("7C 7D 7B 7S", 84), ("7C 6D AB 5S FS", 21 + 18 + 16 + 15), ("7C 7D 7B", 0),
    ("RC RD RB RS", 40),
])
def test_primiera(names: str, value: int) -> None:
    """The best card per suit summed; nothing without all four suits."""
    assert primiera(cards(names)) == value


@pytest.mark.parametrize(("names", "value"), [
    ("AD 2D 3D", 3), ("AD 2D 3D 4D 5D", 5), ("AD 2D 4D", 0), ("AD 2D 3D 4D 5D 6D 7D FD CD RD", 10),
])
def test_napola(names: str, value: int) -> None:
    """A-2-3 of denari is 3, each further denari in sequence one more."""
    assert napola(cards(names)) == value


@pytest.mark.parametrize(("scores", "winner"), [
    ([11, 10], 0), ([11, 11], None), ([10, 3], None), ([12, 14], 1), ([12, 12, 5], None),
    ([16, 12, 5], 0),
])
def test_match_winner(scores: list[int], winner: int | None) -> None:
    """The target or more and strictly the best score wins; a tie at the top plays on."""
    state = load_game("scopa", len(scores)).new_initial_state(0)
    assert isinstance(state, ScopaState)
    state._scores = scores
    assert state._match_winner() == winner


@pytest.mark.parametrize(("game_id", "n"), [("scopa", 2), ("scopa", 3), ("scopone", 4)])
def test_matches_end_zero_sum(game_id: str, n: int) -> None:
    """A full match ends with one winner (n-1) or one winning pair (+1 each)."""
    state = load_game(game_id, n).new_initial_state(11)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    returns = state.returns()
    assert sum(returns) == 0
    if game_id == "scopone":
        assert returns[0] == returns[2] == -returns[1] == -returns[3]
    else:
        assert sorted(returns) == [-1.0] * (n - 1) + [n - 1.0]
    scores = [e for e in state.full_events() if e.kind == EventKind.SCORE]
    totals = [sum(e.values[s] for e in scores) for s in range(n)]
    assert list(state.observation(0).scores) == totals


@pytest.mark.parametrize(("call", "message"), [
    (lambda: load_game("scopone", 2), "valid seat counts: 4"),
    (lambda: load_game("scopa", 4), "valid seat counts: 2, 3"),
    (lambda: load_game("scopa", 2, {"classic": True}), "unknown parameter 'classic'"),
    (lambda: load_game("scopa", 2, {"target": 0}), "target=0 is invalid"),
])
def test_bad_input(call: object, message: str) -> None:
    """Bad seat counts and parameters are one-line errors."""
    with pytest.raises(GameError, match=message):
        call()  # type: ignore[operator]


def test_illegal_action_changes_nothing() -> None:
    """Laying down a card that can take is refused, naming the legal set."""
    state = position("scopa", 2, ["7D", "4C"], "7C")
    before = (state.history(), state.observation(0))
    with pytest.raises(IllegalActionError, match=r"7D\) is illegal.*7D x 7C"):
        state.apply_action(card("7D"))
    assert (state.history(), state.observation(0)) == before


def brute_force_legal(hand: tuple[int, ...], table: tuple[int, ...], min_cards: bool,
                      ace_takes_all: bool) -> list[int]:
    """The legal actions worked out naively from every subset of the table."""
    legal = []
    for played in hand:
        value = VALUE[played]
        singles = [other for other in table if VALUE[other] == value]
        if singles:
            legal += [capture_action(played, (other,)) for other in singles]
            continue
        if value == 1 and ace_takes_all and table:
            legal.append(take_all_action(played))
            continue
        sets = [subset for size in range(2, len(table) + 1)
                for subset in combinations(table, size)
                if sum(VALUE[other] for other in subset) == value]
        if sets and min_cards:
            fewest = min(len(subset) for subset in sets)
            sets = [subset for subset in sets if len(subset) == fewest]
        legal += [capture_action(played, subset) for subset in sets] or [played]
    return sorted(legal)


@pytest.mark.parametrize(("game_id", "n", "params"), [
    ("scopa", 2, {}), ("scopa", 3, {"min_cards_capture": True}),
    ("scopone", 4, {"asso_piglia_tutto": True}), ("scopone", 4, {"classic": True}),
])
def test_legal_actions_match_a_brute_force(game_id: str, n: int,
                                           params: dict[str, object]) -> None:
    """Over random matches, the legal set equals a naive enumeration of table subsets."""
    game = load_game(game_id, n, params)  # type: ignore[arg-type]
    chooser = random.Random(5)
    for seed in range(3):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            seat = state.current_player()
            view = state.observation(seat)
            assert state.legal_actions() == brute_force_legal(
                view.hand, view.table, bool(params.get("min_cards_capture")),
                bool(params.get("asso_piglia_tutto")))
            state.apply_action(chooser.choice(state.legal_actions()))


def test_single_cards_come_first_in_id_order() -> None:
    """Taking one table card adds ``40 * (card + 1)`` (the legal actions work it out so)."""
    assert [capture_action(0, (other,)) for other in range(40)] == [
        40 * (other + 1) for other in range(40)]
    assert min(len(CAPTURE_SETS[code - 1]) for code in range(41, TAKE_ALL)) == 2


def test_capture_search_matches_the_plain_subsets() -> None:
    """On random tables, the tree search finds the captures that every subset gives."""
    chooser = random.Random(7)
    for _ in range(400):
        table = sorted(chooser.sample(range(40), chooser.randint(0, 10)))
        mask = sum(1 << other for other in table)
        keys = sorted(VALUE_KEY[other] for other in table)
        for value in range(1, 11):
            for min_cards in (False, True):
                for ace_takes_all in (False, True):
                    found = capture_offsets(mask, keys, value, min_cards, ace_takes_all)
                    assert sorted(found) == reference_offsets(table, value, min_cards,
                                                              ace_takes_all)
            sets = [subset for size in range(2, len(table) + 1)
                    for subset in combinations(table, size)
                    if sum(VALUE[other] for other in subset) == value]
            assert bool(set_sums(keys) >> value & 1) == bool(sets)


def test_mask_points_match_the_piles() -> None:
    """Scoring from card masks gives the points that scoring the piles gives."""
    chooser = random.Random(9)
    for _ in range(400):
        deck = chooser.sample(range(40), 40)
        cuts = sorted(chooser.sample(range(41), chooser.choice([1, 2])))
        piles = [deck[start:stop] for start, stop in zip([0, *cuts], [*cuts, 40], strict=True)]
        piles = [pile[:chooser.randint(0, len(pile))] if chooser.random() < 0.3 else pile
                 for pile in piles]
        scope = [chooser.randint(0, 3) for _ in piles]
        masks = [sum(1 << won for won in pile) for pile in piles]
        for rules in (ScoringRules(), ScoringRules(re_bello=True, napola=True)):
            assert mask_points(masks, scope, rules) == hand_points(piles, scope, rules)
