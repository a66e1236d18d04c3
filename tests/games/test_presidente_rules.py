"""Table-driven rule tests for Presidente (docs/games/presidente.md)."""

from __future__ import annotations

import random

import pytest

from arena.games import IllegalActionError, InvalidParameterError, load_game
from arena.games.api import EventKind, State
from arena.games.cards import HIDDEN, ITALIAN_40
from arena.games.presidente import GIVE, PASS, STRENGTHS, set_action

C = ITALIAN_40.parse
RANK = ITALIAN_40.rank_table()
R = ITALIAN_40.rank_letters.index


def deal_for(n: int, fixed: dict[int, list[str]]) -> list[int]:
    """A 40-card order giving each seat its ``fixed`` cards, the rest filled in id order."""
    sizes = [len(range(seat, 40, n)) for seat in range(n)]
    taken = {C(text) for cards in fixed.values() for text in cards}
    pool = [card for card in range(40) if card not in taken]
    hands = []
    for seat in range(n):
        hand = [C(text) for text in fixed.get(seat, [])]
        while len(hand) < sizes[seat]:
            hand.append(pool.pop(0))
        hands.append(hand)
    return [hands[i % n][i // n] for i in range(40)]


def play(state: State, *moves: str) -> None:
    """Apply moves written as ``2x7`` (two sevens) or ``pass``."""
    for move in moves:
        if move == "pass":
            state.apply_action(PASS)
        else:
            count, rank = move.split("x")
            state.apply_action(set_action(R(rank), int(count)))


FOUR_HANDS = {
    0: ["3C", "3D", "4C", "5C", "6C", "7C", "FC", "CC", "RC", "2C"],
    1: ["3B", "4D", "4B", "5D", "6D", "7D", "FD", "CD", "RD", "AC"],
    2: ["3S", "4S", "5B", "5S", "6B", "7B", "FB", "CB", "RB", "AD"],
    3: ["AB", "AS", "2D", "2B", "2S", "6S", "7S", "FS", "CS", "RS"],
}


@pytest.mark.parametrize(
    ("order", "ranking"),
    [
        ("pagat", "3 4 5 6 7 F C R A 2"),
        ("briscola", "2 4 5 6 7 F C R 3 A"),
    ],
)
def test_rank_orders(order: str, ranking: str) -> None:
    """Each ``rank_order`` ranks the Italian ranks from lowest to highest as documented."""
    strength = STRENGTHS[order]
    assert sorted(ITALIAN_40.rank_letters, key=lambda r: strength[R(r)]) == ranking.split()


@pytest.mark.parametrize(("players", "sizes"), [(3, (14, 13, 13)), (4, (10,) * 4),
                                                 (6, (7, 7, 7, 7, 6, 6))])
def test_whole_deck_dealt_one_at_a_time(players: int, sizes: tuple[int, ...]) -> None:
    """Every card is dealt from the dealer's right; counts may be uneven."""
    order = list(range(40))
    state = load_game("presidente", players).new_initial_state(0, deal=order)
    obs = state.observation(0)
    assert obs.hand_sizes == sizes
    assert obs.hand == tuple(range(0, 40, players))
    assert state.current_player() == 0


def test_leader_may_play_any_set_held() -> None:
    """The leader's actions are every (rank, count) up to the cards held; no pass."""
    state = load_game("presidente").new_initial_state(0, deal=deal_for(4, FOUR_HANDS))
    legal = state.legal_actions()
    assert PASS not in legal
    assert set_action(R("3"), 2) in legal and set_action(R("3"), 3) not in legal
    assert set_action(R("2"), 1) in legal and set_action(R("A"), 1) not in legal


@pytest.mark.parametrize(
    ("params", "lead", "seat1_legal"),
    [
        ({}, "1x6", ["1x7", "1xF", "1xC", "1xR", "1xA", "pass"]),
        ({"allow_equal_rank": True}, "1x6", ["1x6", "1x7", "1xF", "1xC", "1xR", "1xA", "pass"]),
        ({}, "2x3", ["2x4", "pass"]),
        ({"rank_order": "briscola"}, "1xR", ["1x3", "1xA", "pass"]),
        ({}, "1x2", ["pass"]),
    ],
)
def test_follow_with_same_count_and_higher_rank(params: dict[str, object], lead: str,
                                                seat1_legal: list[str]) -> None:
    """Followers play as many cards of a higher rank (or equal, with the option), or pass."""
    game = load_game("presidente", 4, params)  # type: ignore[arg-type]
    state = game.new_initial_state(0, deal=deal_for(4, FOUR_HANDS))
    play(state, lead)
    assert state.current_player() == 1
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == sorted(seat1_legal)


def test_round_closes_when_all_others_pass_and_last_player_leads() -> None:
    """The round is a TRICK of its last player, who leads the next round."""
    state = load_game("presidente").new_initial_state(0, deal=deal_for(4, FOUR_HANDS))
    play(state, "1x3", "1x4", "pass", "pass", "pass")
    trick = state.full_events()[-1]
    assert (trick.kind, trick.seat, trick.cards) == (EventKind.TRICK, 1, (C("3C"), C("4D")))
    assert state.current_player() == 1
    assert PASS not in state.legal_actions()


@pytest.mark.parametrize(("final", "next_seat"), [(True, 3), (False, 2)])
def test_pass_is_final_for_round(final: bool, next_seat: int) -> None:
    """A passed player is skipped for the rest of the round only when passing is final."""
    game = load_game("presidente", 4, {"pass_is_final_for_round": final})
    state = game.new_initial_state(0, deal=deal_for(4, FOUR_HANDS))
    play(state, "1x3", "1x4", "pass", "1x6", "1x7")
    assert state.current_player() == 1
    play(state, "1xF")
    assert state.current_player() == next_seat


def test_exchange_from_the_second_deal() -> None:
    """Scum gives their 2 best cards to the President, who returns 2; then Vice-Scum/VP 1."""
    game = load_game("presidente", 4, {"deals": 2})
    state = game.new_initial_state(4)
    rng = random.Random(4)
    while not [e for e in state.full_events() if e.kind == EventKind.SCORE]:
        state.apply_action(rng.choice(state.legal_actions()))
    score = next(e for e in state.full_events() if e.kind == EventKind.SCORE).values
    ranking = sorted(range(4), key=lambda s: -score[s])
    president, vice, vice_scum, scum = ranking
    assert sorted(score) == [0, 1, 2, 3]
    swap = state.full_events()[-1]
    assert (swap.kind, swap.seat, swap.values) == (EventKind.SWAP, scum, (president,))
    strength = STRENGTHS["pagat"]
    dealt = next(e.cards for e in reversed(state.full_events())
                 if e.kind == EventKind.DEAL and e.seat == scum)
    best = sorted(dealt, key=lambda c: (-strength[RANK[c]], c))[:2]
    assert swap.cards == tuple(sorted(best))
    for seat in range(4):
        seen = state.observation(seat).events[-1].cards
        assert seen == (swap.cards if seat in (scum, president) else (HIDDEN, HIDDEN))
    assert state.current_player() == president
    hand = state.observation(president).hand
    assert state.legal_actions() == [GIVE + c for c in hand]
    state.apply_action(GIVE + hand[0])
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == vice
    second = state.full_events()[-1]
    assert (second.kind, second.seat, second.values) == (EventKind.SWAP, vice_scum, (vice,))
    state.apply_action(state.legal_actions()[-1])
    assert state.current_player() == scum
    assert state.observation(0).hand_sizes == (10, 10, 10, 10)
    assert [e.kind for e in state.full_events()].count(EventKind.SWAP) == 5


def test_three_seats_exchange_president_and_scum_only() -> None:
    """With 3 seats only the President and the Scum exchange, then the Scum leads."""
    game = load_game("presidente", 3, {"deals": 2})
    state = game.new_initial_state(1)
    rng = random.Random(1)
    while not [e for e in state.full_events() if e.kind == EventKind.SCORE]:
        state.apply_action(rng.choice(state.legal_actions()))
    score = next(e for e in state.full_events() if e.kind == EventKind.SCORE).values
    president, scum = score.index(2), score.index(0)
    state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == scum
    assert PASS not in state.legal_actions()
    assert [e.kind for e in state.full_events()].count(EventKind.SWAP) == 3
    assert president != scum


@pytest.mark.parametrize(("players", "seed"), [(3, 0), (4, 1), (5, 2), (6, 3)])
def test_scoring_and_returns(players: int, seed: int) -> None:
    """Deal points n-1 .. 0 by finishing order; returns are free-for-all over the totals."""
    game = load_game("presidente", players)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    scores = [e.values for e in state.full_events() if e.kind == EventKind.SCORE]
    assert len(scores) == 4
    assert all(sorted(v) == list(range(players)) for v in scores)
    totals = [sum(v[s] for v in scores) for s in range(players)]
    winners = [s for s in range(players) if totals[s] == max(totals)]
    k = len(winners)
    assert state.returns() == [players - k if s in winners else -k for s in range(players)]


def test_going_out_and_the_deal_end() -> None:
    """A player who plays their last card goes out; the last holder is the Scum."""
    hands = {0: ["2C", "2D", "2B", "2S", "3C", "3D", "3B", "3S", "4C", "4D"]}
    state = load_game("presidente", 4, {"deals": 1}).new_initial_state(
        0, deal=deal_for(4, hands))
    play(state, "2x3")
    assert [(e.kind, e.seat, e.cards) for e in state.full_events()[-2:]] == [
        (EventKind.PLAY, 0, (C("3C"),)), (EventKind.PLAY, 0, (C("3D"),))]
    play(state, "pass", "pass", "pass", "2x3", "pass", "pass", "pass", "2x4", "pass",
         "pass", "pass", "4x2")
    assert state.observation(0).hand == ()
    assert state.current_player() == 1
    assert state.observation(0).points[0] == 0
    rng = random.Random(0)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    score = next(e for e in state.full_events() if e.kind == EventKind.SCORE).values
    assert score[0] == 3


@pytest.mark.parametrize(
    ("players", "params", "message"),
    [
        (2, {}, "2 players is not allowed"),
        (7, {}, "7 players is not allowed"),
        (4, {"rank_order": "tressette"}, "rank_order"),
        (4, {"deals": 0}, "deals"),
        (4, {"jokers": True}, "unknown parameter"),
    ],
)
def test_bad_parameters_are_clear_errors(players: int, params: dict[str, object],
                                         message: str) -> None:
    """Unknown seat counts, parameters and bad values are one-line errors."""
    with pytest.raises(InvalidParameterError, match=message):
        load_game("presidente", players, params)  # type: ignore[arg-type]


def test_illegal_action_changes_nothing() -> None:
    """Passing as leader is rejected and the state is unchanged."""
    state = load_game("presidente").new_initial_state(0, deal=deal_for(4, FOUR_HANDS))
    before = (state.history(), state.full_events(), state.legal_actions())
    with pytest.raises(IllegalActionError, match=r"action 40 \(pass\) is illegal"):
        state.apply_action(PASS)
    assert (state.history(), state.full_events(), state.legal_actions()) == before
