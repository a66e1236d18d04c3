"""The Tressette heuristic policy (arena.policies.tressette): accusi, redeals and follows."""

from __future__ import annotations

import pytest
from games.test_tressette_rules import HANDS, C, cards, deal4

from arena.games import load_game
from arena.games.tressette import ACCUSO_BASE, KEEP, MONTE
from arena.policies import make_policy
from arena.policies.tressette import TableView, choose_follow


def test_the_heuristic_declares_accusi_and_demands_redeals() -> None:
    """It demands a redeal with a qualifying hand, keeps otherwise, and declares every accuso."""
    weak = ["AC 2C 3C 4B 5B 6B FC CC RC AD",
            "AB 4C 5C 6C 7C 4D 5D 6D 7D 7B",
            "2D 3D 2B 3B 2S 3S AS FD CD RD",
            "FB CB RB 4S 5S 6S 7S FS CS RS"]
    game = load_game("tressette")
    state = game.new_initial_state(0, deal=[deal4(weak), deal4(HANDS)])
    policies = [make_policy("heuristic", game, seat, 0) for seat in range(4)]

    def step() -> int:
        """Let the seat to act choose and apply its action."""
        seat = state.current_player()
        action = policies[seat].act(state.observation(seat))
        state.apply_action(action)
        return action

    assert [step(), step()] == [KEEP, MONTE]
    assert [step() for _ in range(4)] == [KEEP] * 4
    assert step() == ACCUSO_BASE + 15  # seat 0: napoletana of coppe
    assert step() < 40


@pytest.mark.parametrize(
    ("trick", "hand", "expected"),
    [
        (["4C", "3C", "6C"], "AC 5C 7S", "AC"),  # the partner's 3 is sure to win: load the ace
        (["4C", "6C", "RC"], "AC 2C 5C", "AC"),  # last to play: take the king, securing the ace
        (["4C", "6C", "3C"], "2S AS 7S", "7S"),  # void, the 3 wins: discard the lowest card
        (["4C", "3C", "6C"], "2C 5C FC", "FC"),  # load a figure, never the 2
    ],
)
def test_the_heuristic_plays_sensible_cards(trick: list[str], hand: str, expected: str) -> None:
    """Seat 3 plays last to a trick of seats 0-2; its partner is seat 1."""
    view = TableView(seat=3, order=(0, 1, 2, 3), partners=frozenset({1}), hand=cards(hand),
                     trick=list(zip((0, 1, 2), cards(" ".join(trick)), strict=True)), copy=0)
    view.played.update(view_card for _, view_card in view.trick)
    led = [card for card in cards(hand) if card // 10 == C(trick[0]) // 10]
    assert choose_follow(view, led or cards(hand)) == C(expected)
