"""Scopa and Scopone hand scoring: carte, denari, settebello, primiera, scope and the options."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from arena.games.cards import ITALIAN_40, PRIMIERA_VALUE, Rank, Suit

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
