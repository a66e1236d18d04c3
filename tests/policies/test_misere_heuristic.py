"""The Misère heuristic policy (arena.policies.misere): its bids and its take-or-duck play."""

from __future__ import annotations

import pytest
from games.test_misere_rules import C, advance, bid, cards, new_state, order_for, play

from arena.games.cards import FRENCH_52
from arena.games.misere import BID_BASE
from arena.policies import make_policy


@pytest.mark.parametrize(
    ("hand", "low", "high"),
    [
        ("AH KH QH JH TH AS AD AC KS KD 2C 3C 4C", 8, 13),  # long top trumps and aces
        ("2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 6S 7S", 0, 0),  # nothing: bid misère
        ("AS AD AC 2H 3C 4C 5C 2D 3D 4D 5S 6S 7S", 2, 4),  # three side aces
    ],
)
def test_heuristic_bids_its_likely_tricks(hand: str, low: int, high: int) -> None:
    """Deal 1 (hearts trump): the bid counts aces, kings with length and trumps."""
    others = [card for card in range(52) if card not in cards(hand)]
    hands = [hand, *(" ".join(FRENCH_52.short(c) for c in others[k::3]) for k in range(3))]
    state = new_state(deal=order_for(hands))
    policy = make_policy("heuristic", state.game, 0, 0)
    assert low <= policy.act(state.observation(0)) - BID_BASE <= high


def test_heuristic_bids_a_quarter_of_the_hand_blind() -> None:
    """Without a hand to look at, the blind bid is hand_size // 4."""
    state = new_state(seed=3)
    advance(state, 5)
    seat = state.current_player()
    policy = make_policy("heuristic", state.game, seat, 0)
    assert policy.act(state.observation(seat)) == BID_BASE + 3


@pytest.mark.parametrize(
    ("deal_number", "follower_hand", "expected"),
    [
        (6, "TS 2S", "TS"),  # ciapa ciapa: take the trick
        (7, "TS 2S", "2S"),  # misère: duck under the 9
        (7, "TS KS", "TS"),  # misère, forced to win with players to come: the lowest winner
        (0, "TS 2S", "TS"),  # bid 1, no trick yet: win it
    ],
)
def test_heuristic_takes_or_ducks(deal_number: int, follower_hand: str, expected: str) -> None:
    """The second player to a 9 of spades takes or ducks as the deal requires."""
    dealer = (3 + deal_number) % 4
    leader = (dealer + 1) % 4
    follower = (leader + 1) % 4
    fillers = iter(["2C 3C", "4C 5C"])
    hands = ["9S 2D" if seat == leader else follower_hand if seat == follower
             else next(fillers) for seat in range(4)]
    state = new_state({"hand_size": 2}, [order_for(hands, dealer)] * (deal_number + 1))
    advance(state, deal_number)
    if state.observation(0).phase == "bid":
        bid(state, 0, 1, 0, 0)  # the follower bids 1
    play(state, "9S")
    policy = make_policy("heuristic", state.game, follower, 0)
    assert policy.act(state.observation(follower)) == C(expected)
