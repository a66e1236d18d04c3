"""The seeded generator every game draws its chance from.

SplitMix64 with rejection sampling: a fixed, documented algorithm, so the same seed gives the
same shuffles on every machine, Python version and process (no ``hash()``, no global ``random``).
"""

from __future__ import annotations

import hashlib
import math
from functools import cache
from typing import Final, TypeVar

from mypy_extensions import i64

from arena.games.cards import CARD_BIT, MASK_DECK_LIMIT

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


@cache
def _radix_groups(size: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The radices size, size-1, ..., 2 in runs whose product fits in 30 bits.

    Any grouping decodes the same digits; 30 bits keep every chunk a one-digit Python int, so
    the divisions inside a run take the interpreter's fast single-digit path.
    """
    groups: list[tuple[int, tuple[int, ...]]] = []
    radices: list[int] = []
    product = 1
    for radix in range(size, 1, -1):
        if product * radix >= 1 << 30:
            groups.append((product, tuple(radices)))
            product, radices = 1, []
        product *= radix
        radices.append(radix)
    if radices:
        groups.append((product, tuple(radices)))
    return tuple(groups)


@cache
def _entropy_bytes(size: int) -> int:
    """Hash bytes for a shuffle of ``size`` cards: log2(size!) bits plus 128 to spare."""
    return (math.factorial(size).bit_length() + 128 + 7) // 8


_PLANS: dict[int, tuple[int, list[tuple[int, list[i64]]]]] = {}
"""Per deck size: the hash length and the radix groups, with machine-integer radices."""


def _plan(size: int) -> tuple[int, list[tuple[int, list[i64]]]]:
    """The hash bytes and radix groups of a shuffle of ``size`` cards, made once per size."""
    plan = _PLANS.get(size)
    if plan is None:
        groups = [(product, [i64(radix) for radix in radices])
                  for product, radices in _radix_groups(size)]
        plan = _PLANS[size] = (_entropy_bytes(size), groups)
    return plan


def _byte_counts() -> tuple[int, ...]:
    """The number of set bits of each byte."""
    return tuple(bin(byte).count("1") for byte in range(256))


def _byte_selects() -> tuple[int, ...]:
    """At ``byte * 8 + k``: the position of the k-th lowest set bit of ``byte`` (0 if none)."""
    table: list[int] = []
    for byte in range(256):
        positions = [bit for bit in range(8) if byte >> bit & 1]
        table.extend(positions + [0] * (8 - len(positions)))
    return tuple(table)


_BYTE_COUNT: Final[tuple[int, ...]] = _byte_counts()
_BYTE_SELECT: Final[tuple[int, ...]] = _byte_selects()


def shuffled_deck(size: int, seed: int, *labels: str | int) -> list[int]:
    """The cards 0..size-1 in the order given by a seed and labels.

    The SHAKE-256 hash of the seed and labels, log2(size!) + 128 bits long, is read as a number
    and written in the mixed radix size, size-1, ..., 2: the digits pick each next card from the
    cards left (a Lehmer code), so every order is equally likely to within 2**-128.
    """
    if len(labels) == 2:
        text = f"{seed}:{labels[0]}:{labels[1]}"
    else:
        text = ":".join(map(str, (seed, *labels)))
    length, groups = _plan(size)
    number = int.from_bytes(hashlib.shake_256(text.encode()).digest(length), "big")
    if size <= MASK_DECK_LIMIT:
        return _lehmer_order_by_mask(number, size, groups)
    return _lehmer_order_by_list(number, size, groups)


def _lehmer_order_by_list(number: int, size: int,
                          groups: list[tuple[int, list[i64]]]) -> list[int]:
    """Decode a Lehmer code: each digit, least significant first, takes a card from a list."""
    left = list(range(size))
    order: list[int] = []
    for product, radices in groups:
        number, group_digits = divmod(number, product)
        digits: i64 = group_digits
        for radix in radices:
            order.append(left.pop(digits % radix))
            digits = digits // radix
    order.extend(left)
    return order


def _lehmer_order_by_mask(number: int, size: int,
                          groups: list[tuple[int, list[i64]]]) -> list[int]:
    """As ``_lehmer_order_by_list``, the cards left being the set bits of ``left``."""
    left: i64 = CARD_BIT[size] - 1
    order: list[int] = []
    for product, radices in groups:
        number, group_digits = divmod(number, product)
        digits: i64 = group_digits
        for radix in radices:
            card = _nth_bit(left, digits % radix)
            left ^= CARD_BIT[card]
            order.append(card)
            digits = digits // radix
    order.append(_nth_bit(left, 0))
    return order


def _nth_bit(bits: i64, skip: i64) -> i64:
    """The position of the set bit of ``bits`` that has ``skip`` set bits below it."""
    low: i64 = 0
    byte: i64 = bits & 255
    count: i64 = _BYTE_COUNT[byte]
    while skip >= count:
        skip -= count
        low += 8
        byte = bits >> low & 255
        count = _BYTE_COUNT[byte]
    return low + _BYTE_SELECT[byte * 8 + skip]
