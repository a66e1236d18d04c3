"""The two Lehmer-code decoders of ``arena.games.rng`` give the same orders."""

from __future__ import annotations

import pytest

from arena.games.cards import MASK_DECK_LIMIT
from arena.games.rng import (
    _lehmer_order_by_list,
    _lehmer_order_by_mask,
    _plan,
    shuffled_deck,
)


@pytest.mark.parametrize("size", [2, 3, 9, 40, 52, MASK_DECK_LIMIT])
def test_the_bit_mask_decoder_matches_the_list_decoder(size: int) -> None:
    """Both decoders give the same order from the same digits."""
    _, groups = _plan(size)
    for number in [0, 1, 7, 2**64 + 3, 3**150, 5**300, (1 << 400) - 1]:
        assert _lehmer_order_by_mask(number, size, groups) == _lehmer_order_by_list(
            number, size, groups)


def test_seeded_orders_are_permutations_on_both_sides_of_the_mask_limit() -> None:
    """Seeded shuffles of decks below and above the mask limit are permutations of the deck."""
    for size in (MASK_DECK_LIMIT, MASK_DECK_LIMIT + 1, 80, 120):
        for seed in range(20):
            assert sorted(shuffled_deck(size, seed, "deal", 0)) == list(range(size))
