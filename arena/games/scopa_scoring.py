"""Scopa and Scopone hand scoring: carte, denari, settebello, primiera, scope and the options.

``hand_points`` scores piles of card ids; ``mask_points`` scores the same from card masks
(a bit per card won), a suit's ten bits at a time from prebuilt tables, for the game's hot
path. A test compares the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from mypy_extensions import i64

from arena.games.cards import CARD_BIT, ITALIAN_40, PRIMIERA_VALUE, Rank, Suit

SUIT: Final = ITALIAN_40.suit_table()
PRIMIERA: Final = ITALIAN_40.per_card(PRIMIERA_VALUE)
SETTEBELLO: Final = ITALIAN_40.card(Suit.DENARI, Rank.SETTE)
RE_BELLO: Final = ITALIAN_40.card(Suit.DENARI, Rank.RE)
IS_DENARI: Final = tuple(int(suit == Suit.DENARI) for suit in SUIT)
"""1 for a card of denari, else 0."""
DENARI_RUN: Final = tuple(ITALIAN_40.card(Suit.DENARI, rank) for rank in Rank)
"""The denari from the ace up, for the napola."""


@dataclass(frozen=True)
class ScoringRules:
    """Which points a hand awards besides the standard four and the scope."""

    re_bello: bool = False
    napola: bool = False


def unique_best(values: Sequence[int], floor: int | None = None) -> int | None:
    """The index of the strictly highest value (at least ``floor``), or None on a tie."""
    best = max(values)
    if values.count(best) > 1 or (floor is not None and best < floor):
        return None
    return values.index(best)


def primiera(pile: Sequence[int]) -> int:
    """The primiera of a pile: the best card of each suit summed, 0 without all four suits."""
    best = [0, 0, 0, 0]
    suit_of, value_of = SUIT, PRIMIERA
    for card in pile:
        value = value_of[card]
        if value > best[suit_of[card]]:
            best[suit_of[card]] = value
    return sum(best) if all(best) else 0


def napola(pile: Sequence[int]) -> int:
    """3 points for A-2-3 of denari, one more per further denari in sequence, else 0."""
    owned = set(pile)
    run = 0
    while run < len(DENARI_RUN) and DENARI_RUN[run] in owned:
        run += 1
    return run if run >= 3 else 0


def hand_points(piles: Sequence[Sequence[int]], scope: Sequence[int],
                rules: ScoringRules) -> list[int]:
    """Game points per side from its captured pile and its scope (ties give no point)."""
    sides = len(piles)
    points = list(scope)
    carte = unique_best([len(pile) for pile in piles])
    denari = unique_best([sum(map(IS_DENARI.__getitem__, pile)) for pile in piles])
    prime = unique_best([primiera(pile) for pile in piles], floor=1)
    for winner in (carte, denari, prime):
        if winner is not None:
            points[winner] += 1
    for side in range(sides):
        pile = piles[side]
        if SETTEBELLO in pile:
            points[side] += 1
        if rules.re_bello and RE_BELLO in pile:
            points[side] += 1
        if rules.napola:
            points[side] += napola(pile)
    return points


_SUITS: Final = ITALIAN_40.suits
_SUIT_BITS: Final = ITALIAN_40.ranks
_SUIT_MASK: Final = (1 << _SUIT_BITS) - 1
_DENARI_SHIFT: Final = Suit.DENARI * _SUIT_BITS
_RANK_PRIMIERA: Final = PRIMIERA_VALUE


def _suit_tables() -> tuple[tuple[int, ...], ...]:
    """Per ten bits of a suit: how many cards they hold, the primiera value of the best one
    (0: none), and how many they hold in sequence from the ace."""
    count = [0] * (_SUIT_MASK + 1)
    best = [0] * (_SUIT_MASK + 1)
    run = [0] * (_SUIT_MASK + 1)
    for bits in range(1, _SUIT_MASK + 1):
        rest = bits & (bits - 1)
        count[bits] = count[rest] + 1
        best[bits] = max(best[rest], _RANK_PRIMIERA[(bits ^ rest).bit_length() - 1])
        run[bits] = run[bits >> 1] + 1 if bits & 1 else 0
    return tuple(count), tuple(best), tuple(run)


_SUIT_TABLES: Final = _suit_tables()
SUIT_COUNT: Final[tuple[int, ...]] = _SUIT_TABLES[0]
"""Per ten bits of a suit, how many cards they hold."""
SUIT_PRIMIERA: Final[tuple[int, ...]] = _SUIT_TABLES[1]
"""Per ten bits of a suit, the primiera value of its best card (0: none)."""
SUIT_RUN: Final[tuple[int, ...]] = _SUIT_TABLES[2]
"""Per ten bits of a suit, how many of its cards it holds in sequence from the ace."""


def _best(values: list[int], floor: int) -> int:
    """The index of the strictly highest value (at least ``floor``), or -1 on a tie."""
    best = -1
    top = floor - 1
    tied = False
    for index in range(len(values)):
        value = values[index]
        if value > top:
            best, top, tied = index, value, False
        elif value == top:
            tied = True
    return -1 if tied else best


def mask_points(won: list[int], scope: list[int], rules: ScoringRules) -> list[int]:
    """``hand_points`` from each side's card mask ``won`` (a bit per card) and its scope."""
    points = list(scope)
    cards: list[int] = []
    coins: list[int] = []
    prime: list[int] = []
    for side in range(len(won)):
        mask: i64 = won[side]
        count = 0
        total = 0
        suits = 0
        for suit in range(_SUITS):
            bits = mask >> suit * _SUIT_BITS & _SUIT_MASK
            count += SUIT_COUNT[bits]
            best = SUIT_PRIMIERA[bits]
            if best:
                total += best
                suits += 1
        cards.append(count)
        coins.append(SUIT_COUNT[mask >> _DENARI_SHIFT & _SUIT_MASK])
        prime.append(total if suits == _SUITS else 0)
    for winner in (_best(cards, 0), _best(coins, 0), _best(prime, 1)):
        if winner >= 0:
            points[winner] += 1
    for side in range(len(won)):
        mask = won[side]
        if mask & CARD_BIT[SETTEBELLO]:
            points[side] += 1
        if rules.re_bello and mask & CARD_BIT[RE_BELLO]:
            points[side] += 1
        if rules.napola:
            run = SUIT_RUN[mask >> _DENARI_SHIFT & _SUIT_MASK]
            if run >= 3:
                points[side] += run
    return points
