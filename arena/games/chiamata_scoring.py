"""Briscola chiamata scoring: whether the caller's side made its target, and the game points.

The zero-sum table for D defenders and P real partners (the dead hand is never a partner here):
each defender -1 when the caller's side wins (+1 when it loses), each real partner +1 (-1),
the caller +(D - P) (-(D - P)). Cappotto doubles it; the bid multiplier scales it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of one hand for the caller's side and the game points per seat."""

    made: bool
    cappotto: bool
    multiplier: int
    scores: tuple[int, ...]


def target_made(side_points: int, target: int, strict: bool) -> bool:
    """True when the caller's side reached the target (``strict``: more than the target)."""
    return side_points > target if strict else side_points >= target


def bid_multiplier(target: int, two_decks: bool) -> int:
    """x1 for 61-70, x2 for 71-80, x3 for 81-90, x4 for 91-100, x5 for 101+ (two decks: -60)."""
    level = target - 60 if two_decks else target
    return 1 + min(4, max(0, (level - 61) // 10))


def score_hand(num_seats: int, caller: int, partners: tuple[int, ...], side_points: int,
               defender_points: int, total: int, target: int, strict: bool,
               scale_with_bid: bool, two_decks: bool) -> HandResult:
    """Game points per seat for a finished hand.

    ``side_points`` are the card points of the caller's side (the dead hand's included when it is
    the partner), ``defender_points`` those of the defending seats, ``total`` the deck's points.
    """
    made = target_made(side_points, target, strict)
    cappotto = total in (side_points, defender_points)
    multiplier = (2 if cappotto else 1) * (bid_multiplier(target, two_decks) if scale_with_bid
                                           else 1)
    sign = multiplier if made else -multiplier
    defenders = num_seats - 1 - len(partners)
    scores = [-sign] * num_seats
    for partner in partners:
        scores[partner] = sign
    scores[caller] = sign * (defenders - len(partners))
    return HandResult(made, cappotto, multiplier, tuple(scores))
