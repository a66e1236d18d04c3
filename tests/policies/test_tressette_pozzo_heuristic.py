"""The Tressette con il pozzo heuristic policy (arena.policies.tressette_pozzo): bids, the
called card, and a whole match of legal moves."""

from __future__ import annotations

import pytest
from games.test_tressette_pozzo_rules import (
    GAME,
    MIDDLE,
    STRONG,
    WEAK,
    C,
    calabresella_order,
    cards,
)

from arena.games import load_game
from arena.games.cards import ITALIAN_40
from arena.games.tressette_pozzo import CHIAMO, PASS, SOLISSIMO, SOLO, THIRDS
from arena.policies import make_policy
from arena.policies.tressette_pozzo import HeuristicPolicy, estimate


@pytest.mark.parametrize(
    ("hand", "bid"),
    [(STRONG, SOLISSIMO), (WEAK, PASS), (MIDDLE, PASS),
     ("3C 2C AC RC 3D 2D AD RD 3B 2B 4S 5S", SOLO),
     ("3C 2C AC RC CC 3D 2D AD 3B 4B 5S 6S", CHIAMO),
     ("2C AC RC CC FC 7C 2D AD 3B 4B 5S 6S", PASS)],
)
def test_heuristic_bids_by_hand_strength(hand: str, bid: int) -> None:
    """Sure tricks with 3s, 2s and aces and long suits decide the bid."""
    others = [card for card in range(40) if card not in cards(hand)]
    hands = [hand, " ".join(ITALIAN_40.short(c) for c in others[:12]),
             " ".join(ITALIAN_40.short(c) for c in others[12:24])]
    monte = " ".join(ITALIAN_40.short(c) for c in others[24:])
    game = load_game(GAME)
    state = game.new_initial_state(0, deal=calabresella_order(hands, monte))
    assert HeuristicPolicy(game, 0, 0).act(state.observation(0)) == bid


def test_heuristic_calls_the_three_that_guards_its_ace() -> None:
    """Holding the 2 and ace of denari, the 3 of denari is the most useful card to call."""
    hands = ["2C AC RC CC FC 7C 2D AD 3B 4B 5S 6S", "3C 6C 5C 4C 3D RD CD FD 7D 6D 2B AB",
             "5D 4D RB CB FB 7B 6B 5B 3S 2S AS RS"]
    game = load_game(GAME)
    state = game.new_initial_state(0, deal=calabresella_order(hands, "4S CS FS 7S"))
    for bid in (CHIAMO, PASS, PASS):
        state.apply_action(bid)
    policy = HeuristicPolicy(game, 0, 0)
    assert policy.act(state.observation(0)) == C("3D")
    hand = set(state.observation(0).hand)
    assert estimate(hand | {C("3D")}, ()) > estimate(hand, ())
    state.apply_action(C("3D"))
    assert THIRDS[policy.act(state.observation(0))] == 0  # gives back a card worth nothing


def test_heuristic_plays_legal_moves_through_a_match() -> None:
    """Three heuristic seats finish a short match with legal actions only."""
    game = load_game(GAME, params={"target": 5})
    policies = [make_policy("heuristic", game, seat, 1) for seat in range(3)]
    state = game.new_initial_state(1)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(policies[seat].act(state.observation(seat)))
    assert sorted(state.returns()) in ([-1.0, -1.0, 2.0], [-2.0, 1.0, 1.0])
