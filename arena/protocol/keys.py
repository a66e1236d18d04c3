"""Cache keys for short runs of small ints: one int where a tuple would be looked up.

The encoder's caches are looked up at every decision by values such as a hand, a score pair or
an event (its kind, seat, cards and values). A tuple key is hashed again, item by item, at each
lookup (CPython keeps no tuple hash), and compared item by item on a hit; an int is hashed and
compared in a few instructions. A run of at most ``MAX_DIGITS`` ints, each from ``LOW`` to
``HIGH``, packs into one int below 2**60 that no other run shares: its length, then 7 bits per
value. Any other value keeps its tuple as key; an int never equals a tuple, so both kinds of
key can share one dict.
"""

from __future__ import annotations

from typing import Final

MAX_DIGITS: Final = 8
LOW: Final = -1
HIGH: Final = 126
_BITS: Final = 7

EventKey = int | tuple[int, int, tuple[int, ...], tuple[int, ...]]
"""An event's cache key: its packed digits, or its kind, seat, cards and values."""


def _packed(key: int, values: tuple[int, ...]) -> int:
    """``key`` followed by the 7-bit digits of ``values``; -1 when one is out of range."""
    for value in values:
        if value < LOW or value > HIGH:
            return -1
        key = key << _BITS | (value - LOW)
    return key


def ints_key(values: tuple[int, ...]) -> int | tuple[int, ...]:
    """The cache key of a tuple of ints: one int when it is short and its ints small, else
    the tuple itself."""
    if len(values) > MAX_DIGITS:
        return values
    key = _packed(len(values), values)
    return values if key < 0 else key


def event_key(kind: int, seat: int, cards: tuple[int, ...],
              values: tuple[int, ...]) -> EventKey:
    """The cache key of an event: the digits kind, seat, number of cards, cards and values
    packed as by ``ints_key`` when they fit, else the tuple of its fields."""
    count = 3 + len(cards) + len(values)
    if count <= MAX_DIGITS and LOW <= kind <= HIGH and LOW <= seat <= HIGH:
        key = _packed(((count << _BITS | (kind - LOW)) << _BITS | (seat - LOW)) << _BITS
                      | len(cards), cards)
        if key >= 0:
            key = _packed(key, values)
            if key >= 0:
                return key
    return (kind, seat, cards, values)
