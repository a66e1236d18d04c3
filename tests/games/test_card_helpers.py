"""The small card-list helpers of ``arena.games.cards`` that hot paths use instead of the stdlib."""

from __future__ import annotations

import random
from bisect import insort

from arena.games.cards import insert_sorted, remove_card, sort_distinct


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


def test_sort_distinct_sorts_any_subset_of_a_deck() -> None:
    """Random subsets of 40, 52 and 120-card decks come out as ``sorted`` gives them."""
    rand = random.Random(5)
    for size in (40, 52, 120):
        for _ in range(100):
            cards = rand.sample(range(size), rand.randrange(size + 1))
            assert sort_distinct(cards, size) == sorted(cards)
    assert sort_distinct([], 40) == []


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
