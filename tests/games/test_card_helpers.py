"""The small card-list helpers of ``arena.games.cards`` that hot paths use instead of the stdlib."""

from __future__ import annotations

import random
from bisect import insort

from arena.games.cards import CARD_BIT, MASK_DECK_LIMIT, cards_outside, insert_sorted, remove_card


def test_insert_sorted_matches_insort_including_equal_cards() -> None:
    """Random lists and cards, duplicates included: the same list as ``bisect.insort``."""
    rand = random.Random(3)
    for _ in range(300):
        cards = sorted(rand.randrange(12) for _ in range(rand.randrange(8)))
        card = rand.randrange(12)
        expected = cards[:]
        insort(expected, card)
        insert_sorted(cards, card)
        assert cards == expected


def test_insert_sorted_into_an_empty_list() -> None:
    """A card goes into an empty hand."""
    cards: list[int] = []
    insert_sorted(cards, 7)
    assert cards == [7]


def test_cards_outside_lists_the_cards_a_mask_lacks() -> None:
    """Random masks of 40, 52 and 62-card decks, from none taken to all taken."""
    rand = random.Random(5)
    for size in (40, 52, MASK_DECK_LIMIT):
        for _ in range(100):
            taken = set(rand.sample(range(size), rand.randrange(size + 1)))
            mask = sum(CARD_BIT[card] for card in taken)
            assert cards_outside(mask, size) == tuple(c for c in range(size) if c not in taken)
    assert cards_outside(0, 40) == tuple(range(40))
    assert cards_outside(CARD_BIT[40] - 1, 40) == ()


def test_remove_card_removes_the_first_copy_like_list_remove() -> None:
    """The first copy of a card goes, as with ``list.remove``."""
    rand = random.Random(7)
    for _ in range(300):
        cards = [rand.randrange(10) for _ in range(1 + rand.randrange(8))]
        card = rand.choice(cards)
        expected = cards[:]
        expected.remove(card)
        remove_card(cards, card)
        assert cards == expected
