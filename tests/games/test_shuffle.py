"""``arena.games.rng.shuffled_deck`` is the documented xoshiro128** Fisher-Yates shuffle."""

from __future__ import annotations

import pytest

from arena.games.rng import CHAIN_STARTS, shuffled_deck

M32 = 0xFFFFFFFF


def fmix32(h: int) -> int:
    """MurmurHash3's finalizer with Python's unbounded integers."""
    h ^= h >> 16
    h = h * 0x85EBCA6B & M32
    h ^= h >> 13
    h = h * 0xC2B2AE35 & M32
    return h ^ h >> 16


def rotl(x: int, k: int) -> int:
    """Rotate a 32-bit word left."""
    return (x << k | x >> (32 - k)) & M32


def xoshiro_next(s: list[int]) -> int:
    """xoshiro128**'s next output; advances the four words of ``s`` in place."""
    output = rotl(s[1] * 5 & M32, 7) * 9 & M32
    shifted = s[1] << 9 & M32
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= shifted
    s[3] = rotl(s[3], 11)
    return output


def documented_shuffle(size: int, seed: int, deal: int, table: int,
                       set_aside: tuple[int, ...] = ()) -> list[int]:
    """The shuffle as its docstring states it, written out plainly."""
    inputs = (seed & M32, seed >> 32 & M32, deal, table)
    state = []
    for start in CHAIN_STARTS:
        word = start
        for value in inputs:
            word = fmix32(word ^ value)
        state.append(word)
    s = state if any(state) else [0, 0, 0, 1]
    order = [card for card in range(size) if card not in set_aside]
    for top in range(len(order) - 1, 0, -1):
        pick = xoshiro_next(s) * (top + 1) >> 32
        order[top], order[pick] = order[pick], order[top]
    return order


def test_the_generator_matches_xoshiro128starstar() -> None:
    """The plain statement's generator gives the reference C code's first outputs from the
    state (1, 2, 3, 4)."""
    s = [1, 2, 3, 4]
    assert [xoshiro_next(s) for _ in range(4)] == [11520, 0, 5927040, 70819200]


@pytest.mark.parametrize("set_aside", [(), (0,), (5,), (39,), (3, 17)])
def test_cards_set_aside_are_out_of_the_shuffle(set_aside: tuple[int, ...]) -> None:
    """Cards set aside are taken out first; the others are shuffled as the plain statement
    says, and the same seed gives the same order each time (the kept cards are cached)."""
    for seed in [0, 7, 2**40 + 3]:
        order = shuffled_deck(40, seed, 2, 0, set_aside)
        assert order == documented_shuffle(40, seed, 2, 0, set_aside)
        assert sorted(order) == sorted(set(range(40)) - set(set_aside))
        assert shuffled_deck(40, seed, 2, 0, set_aside) == order


@pytest.mark.parametrize("size", [0, 1, 2, 3, 40, 52, 80, 120])
def test_the_shuffle_is_the_documented_one(size: int) -> None:
    """Same orders as the plain statement of the algorithm, with large seeds and tables."""
    for seed in [0, 1, 12345, 2**32 - 1, 2**32, 2**63, 2**64 - 1]:
        for deal, table in [(0, 0), (3, 0), (7, 2)]:
            assert shuffled_deck(size, seed, deal, table) == documented_shuffle(
                size, seed, deal, table)


def test_seeded_orders_are_permutations() -> None:
    """Seeded shuffles of every deck size the games use are permutations of the deck."""
    for size in (40, 52, 80, 120):
        for seed in range(20):
            assert sorted(shuffled_deck(size, seed, 0)) == list(range(size))


def test_nearby_inputs_give_unrelated_orders() -> None:
    """Seeds, deals and tables one apart share about as many positions as random orders do."""
    base = shuffled_deck(40, 1000, 0)
    for other in [shuffled_deck(40, 1001, 0), shuffled_deck(40, 1000, 1),
                  shuffled_deck(40, 1000, 0, 1), shuffled_deck(40, 1000 + 2**32, 0)]:
        assert sum(a == b for a, b in zip(base, other, strict=True)) <= 6
