"""The seeded chance every game draws from: shuffles and a generator.

Deals are shuffled by ``shuffled_deck`` with xoshiro128** seeded from the match seed and the
deal number; other chance (a dead hand's plays) comes from ``Rng``, SplitMix64 with rejection
sampling. Both are fixed, documented algorithms, so the same seed gives the same game on every
machine, Python version and process (no ``hash()``, no global ``random``).
"""

from __future__ import annotations

import hashlib
from typing import Final, TypeVar, cast

from mypy_extensions import i64

_MASK: Final = (1 << 64) - 1
_T = TypeVar("_T")

MAX_SEED: Final = _MASK
"""Seeds are integers from 0 to 2**64 - 1."""


class Rng:
    """SplitMix64: a small, fast, portable pseudo-random generator."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        """Start from a seed in 0..2**64-1."""
        self._state = seed & _MASK

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self._state = state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in 0..n-1 (unbiased, by rejection)."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        limit = ((_MASK + 1) // n) * n
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def shuffle(self, items: list[_T]) -> None:
        """Shuffle a list in place (Fisher-Yates)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: tuple[_T, ...] | list[_T]) -> _T:
        """A uniformly chosen element."""
        return items[self.below(len(items))]

    def clone(self) -> Rng:
        """An independent copy in the same state."""
        twin = Rng(0)
        twin._state = self._state
        return twin


def derive_seed(seed: int, *labels: str | int) -> int:
    """A new seed from a seed and labels (hand number, purpose), stable everywhere."""
    text = ":".join([str(seed), *(str(label) for label in labels)])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


_M32: Final = 0xFFFFFFFF
CHAIN_STARTS: Final[tuple[int, ...]] = (0x9E3779B9, 0x7F4A7C15, 0xF39CC060, 0x5CEDC834)
"""The first value of each of the four mixing chains that make a shuffle's generator state."""
_IDENTITY: Final[dict[int, list[object]]] = {}
"""Per deck size, the cards in id order: a shuffle starts from a copy. Held as objects, the
compiled swaps move references without unboxing and boxing each card id."""
_KEPT: Final[dict[tuple[int, tuple[int, ...]], list[object]]] = {}
"""Per deck size and cards set aside, the other cards in id order."""


def shuffled_deck(size: int, seed: int, deal: int, table: int = 0,
                  set_aside: tuple[int, ...] = ()) -> list[int]:
    """The cards 0..size-1 in the order of deal ``deal`` (at ``table``) of a match ``seed``;
    cards ``set_aside`` are taken out before the shuffle (the others keep their id order).

    The seed's two 32-bit halves, the deal and the table are mixed into the four 32-bit words
    of an xoshiro128** generator: word j is ``f(f(f(f(C[j] ^ s0) ^ s1) ^ deal) ^ table)`` with
    f MurmurHash3's finalizer and C ``CHAIN_STARTS``. Then a Fisher-Yates shuffle: for ``i``
    from ``size - 1`` down to 1, the card at ``i`` swaps with the card at ``(x * (i + 1)) >> 32``,
    x the generator's next output. Every product stays below 2**63, so the compiled engine
    (64-bit integers) and the interpreted one give the same orders.
    """
    low: i64 = seed & _M32
    high: i64 = seed >> 32 & _M32
    deal_word: i64 = deal & _M32
    table_word: i64 = table & _M32
    a = _chain(CHAIN_STARTS[0], low, high, deal_word, table_word)
    b = _chain(CHAIN_STARTS[1], low, high, deal_word, table_word)
    c = _chain(CHAIN_STARTS[2], low, high, deal_word, table_word)
    d = _chain(CHAIN_STARTS[3], low, high, deal_word, table_word)
    if not a | b | c | d:
        d = 1  # xoshiro's one forbidden state
    order = _cards_in_order(size, set_aside)[:]
    top: i64 = len(order) - 1
    while top > 0:
        x: i64 = b * 5 & _M32
        x = ((x << 7 | x >> 25) & _M32) * 9 & _M32
        shifted: i64 = b << 9 & _M32
        c ^= a
        d ^= b
        b ^= c
        a ^= d
        c ^= shifted
        d = (d << 11 | d >> 21) & _M32
        pick: i64 = x * (top + 1) >> 32
        card = order[top]
        order[top] = order[pick]
        order[pick] = card
        top -= 1
    return cast(list[int], order)


def _cards_in_order(size: int, set_aside: tuple[int, ...]) -> list[object]:
    """The cards 0..size-1 but ``set_aside``, in id order (kept for the next shuffles)."""
    if set_aside:
        key = (size, set_aside)
        kept = _KEPT.get(key)
        if kept is None:
            kept = _KEPT[key] = [card for card in range(size) if card not in set_aside]
        return kept
    identity = _IDENTITY.get(size)
    if identity is None:
        identity = _IDENTITY[size] = list(range(size))
    return identity


def _chain(start: i64, low: i64, high: i64, deal: i64, table: i64) -> i64:
    """One word of a shuffle's generator state: the four inputs mixed into ``start`` in turn."""
    return _fmix32(_fmix32(_fmix32(_fmix32(start ^ low) ^ high) ^ deal) ^ table)


def _fmix32(h: i64) -> i64:
    """MurmurHash3's 32-bit finalizer: a bijection that spreads every bit over the word.

    Each product modulo 2**32 is written with the factor in 16-bit halves (0x85EB and 0xCA6B,
    0xC2B2 and 0xAE35), so that no product reaches 2**49."""
    h ^= h >> 16
    h = (h * 0xCA6B + ((h * 0x85EB & 0xFFFF) << 16)) & _M32
    h ^= h >> 13
    h = (h * 0xAE35 + ((h * 0xC2B2 & 0xFFFF) << 16)) & _M32
    return h ^ h >> 16
