"""Table-driven rule tests for Vecchia (docs/games/vecchia.md)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.games import IllegalActionError, InvalidParameterError, load_game
from arena.games.api import EventKind, State
from arena.games.cards import HIDDEN, ITALIAN_40
from arena.games.vecchia import DISCARD, DONE, removed_fanti

C = ITALIAN_40.parse
RANK = ITALIAN_40.rank_table()


def deal_for(n: int, fixed: dict[int, list[str]], old_maid: str = "spade") -> list[int]:
    """A 40-card order giving each seat its ``fixed`` cards first, the rest filled in id order."""
    removed = removed_fanti(old_maid)
    sizes = [len(range(seat, 37, n)) for seat in range(n)]
    taken = {C(text) for cards in fixed.values() for text in cards}
    pool = [card for card in range(40) if card not in taken and card not in removed]
    hands = []
    for seat in range(n):
        hand = [C(text) for text in fixed.get(seat, [])]
        while len(hand) < sizes[seat]:
            hand.append(pool.pop(0))
        hands.append(hand)
    return [hands[i % n][i // n] for i in range(37)] + list(removed)


def finish_discards(state: State) -> None:
    """Apply the forced discard-phase actions until the first draw."""
    while state.legal_actions() and state.legal_actions()[0] >= DISCARD:
        state.apply_action(state.legal_actions()[0])


@pytest.mark.parametrize(("old_maid", "kept"), [("spade", "FS"), ("bastoni", "FB")])
def test_deck_keeps_one_fante(old_maid: str, kept: str) -> None:
    """37 cards are dealt: every fante but the old maid's is removed."""
    game = load_game("vecchia", 4, {"old_maid": old_maid})
    state = game.new_initial_state(1)
    dealt = [c for e in state.full_events() if e.kind == EventKind.DEAL for c in e.cards]
    assert len(dealt) == 37
    assert [c for c in dealt if RANK[c] == 7] == [C(kept)]


@pytest.mark.parametrize("players", [3, 4, 5, 8])
def test_deal_one_at_a_time_from_the_dealers_right(players: int) -> None:
    """Seat dealer+1 (seat 0) gets the 1st, (1+n)-th, ... dealt card; counts may be uneven."""
    order = list(range(40))
    state = load_game("vecchia", players).new_initial_state(0, deal=order)
    dealt = [c for c in order if c not in removed_fanti("spade")]
    for seat in range(players):
        deal = next(e for e in state.full_events() if e.kind == EventKind.DEAL and e.seat == seat)
        assert deal.cards == tuple(sorted(dealt[seat::players]))


@pytest.mark.parametrize(
    ("hand", "legal"),
    [
        (["AC", "AD", "2C"], [DISCARD + 0]),  # one pair of aces
        (["AC", "AD", "AB", "2C"], [DISCARD + 0]),  # three aces: one pair, one stays
        (["AC", "AD", "AB", "AS"], [DISCARD + 0]),  # four aces: two pairs of the same rank
        (["AC", "2D", "3B", "RC", "RD"], [DISCARD + 9]),
    ],
)
def test_discard_phase_legal_actions(hand: list[str], legal: list[int]) -> None:
    """The first seat must discard each pair it holds, one per action, then say done."""
    state = load_game("vecchia", 3).new_initial_state(0, deal=deal_for(3, {0: hand}))
    mine = list(state.observation(0).hand)
    counts = Counter(RANK[c] for c in mine)
    expected = [DISCARD + r for r in sorted(counts) if counts[r] > 1] or [DONE]
    assert state.current_player() == 0
    assert state.legal_actions() == expected
    assert set(legal) <= set(expected)
    while state.current_player() == 0 and state.legal_actions() != [DONE]:
        state.apply_action(state.legal_actions()[0])
    left = Counter(RANK[c] for c in state.observation(0).hand)
    assert all(count == 1 for count in left.values())
    assert {r: counts[r] % 2 for r in counts if counts[r] % 2} == dict(left)


def test_discarded_pairs_are_public_play_events() -> None:
    """A discarded pair is two PLAY events, one per card, that every seat sees."""
    state = load_game("vecchia", 3).new_initial_state(0, deal=deal_for(3, {0: ["AC", "AD"]}))
    state.apply_action(DISCARD + 0)
    for seat in range(3):
        last = state.observation(seat).events[-2:]
        assert [(e.kind, e.seat, e.cards) for e in last] == [
            (EventKind.PLAY, 0, (C("AC"),)), (EventKind.PLAY, 0, (C("AD"),))]


@pytest.mark.parametrize("seed", range(12))
def test_most_cards_start_ties_from_the_dealers_right(seed: int) -> None:
    """After the discards the seat with most cards offers first (ties: nearest the dealer's
    right), to the next seat still holding cards."""
    state = load_game("vecchia", 5).new_initial_state(seed)
    finish_discards(state)
    obs = state.observation(0)
    sizes = obs.hand_sizes
    first = (obs.dealer + 1) % 5
    order = [(first + k) % 5 for k in range(5)]
    starter = max(order, key=lambda s: (sizes[s], -order.index(s)))
    drawer = next(s for s in order[order.index(starter) + 1:] + order if sizes[s] and s != starter)
    assert state.current_player() == drawer
    assert state.legal_actions() == list(range(sizes[starter]))


def test_drawn_card_is_seen_by_drawer_and_giver_only() -> None:
    """The DRAW event shows the card to the two players involved and hides it from the rest."""
    state = load_game("vecchia", 4).new_initial_state(3)
    finish_discards(state)
    drawer = state.current_player()
    state.apply_action(0)
    draw = state.full_events()[-1]
    assert draw.kind == EventKind.DRAW and draw.seat == drawer
    giver = draw.values[0]
    for seat in range(4):
        seen = state.observation(seat).events[-1].cards
        assert seen == (draw.cards if seat in (drawer, giver) else (HIDDEN,))


def test_position_tells_nothing() -> None:
    """The same position over the same deal draws different cards under different seeds."""
    order = deal_for(4, {})
    drawn = set()
    for seed in range(40):
        state = load_game("vecchia", 4).new_initial_state(seed, deal=order)
        finish_discards(state)
        state.apply_action(0)
        drawn.add(state.full_events()[-1].cards[0])
    assert len(drawn) > 2


@pytest.mark.parametrize(("players", "seed"), [(2, 4), (3, 0), (4, 1), (6, 2), (8, 3)])
def test_old_maid_holder_loses(players: int, seed: int) -> None:
    """The last card is the old maid; its holder gets -(n-1), everyone else +1."""
    game = load_game("vecchia", players)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    holders = [s for s in range(players) if state.observation(s).hand]
    assert len(holders) == 1
    loser = holders[0]
    assert state.observation(loser).hand == (C("FS"),)
    assert state.returns() == [-(players - 1) if s == loser else 1 for s in range(players)]


def test_hands_rotate_the_dealer_and_sum_the_scores() -> None:
    """A match of several hands moves the dealer to the right; returns add up the hands."""
    game = load_game("vecchia", 3, {"hands": 3})
    state = game.new_initial_state(5)
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    events = state.full_events()
    assert [e.seat for e in events if e.kind == EventKind.HAND_START] == [2, 0, 1]
    scores = [e.values for e in events if e.kind == EventKind.SCORE]
    assert state.returns() == [sum(v[s] for v in scores) for s in range(3)]
    assert sum(state.returns()) == 0


@pytest.mark.parametrize(
    ("players", "params", "message"),
    [
        (1, {}, "1 players is not allowed"),
        (9, {}, "9 players is not allowed"),
        (4, {"old_maid": "coppe"}, "old_maid"),
        (4, {"hands": 0}, "hands"),
    ],
)
def test_bad_parameters_are_clear_errors(players: int, params: dict[str, object],
                                         message: str) -> None:
    """Unknown seat counts and bad option values are one-line errors."""
    with pytest.raises(InvalidParameterError, match=message):
        load_game("vecchia", players, params)  # type: ignore[arg-type]


def test_illegal_action_changes_nothing() -> None:
    """A position beyond the offered hand is rejected and the state is unchanged."""
    state = load_game("vecchia", 4).new_initial_state(2)
    finish_discards(state)
    before = (state.history(), state.full_events(), state.legal_actions())
    with pytest.raises(IllegalActionError, match=r"action 20 \(done\) is illegal.*0 \(draw-0\)"):
        state.apply_action(DONE)
    assert (state.history(), state.full_events(), state.legal_actions()) == before
