"""Briscola chiamata auctions: bid actions, bid levels, the legal bids of each variant, names.

Bids are compared by level: a rank bid has level 9 - briscola strength (A 0, 3 1, R 2, ... 4 8,
2 9), "4 obbligato" the level of the 2, and a point bid X the level X (always above 9). A new
bid must have a higher level than the current one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.games.cards import BRISCOLA_STRENGTH, ITALIAN_RANK_LETTERS, Rank

PASS: Final = 80
BID_RANK: Final = 81
BID_4_OBBLIGATO: Final = 91
BID_POINTS: Final = 100

MARCHIGIANO: Final = "marchigiano"
CARTA: Final = "carta"
PUNTI: Final = "punti"
AUCTIONS = (MARCHIGIANO, CARTA, PUNTI)

NO_BID: Final = -1
RANK_LEVEL: Final = tuple(9 - strength for strength in BRISCOLA_STRENGTH)
"""Bid level per rank index: lower ranks in briscola order are higher bids."""


@dataclass(frozen=True, slots=True)
class AuctionRules:
    """The auction variant with the numbers fixed by the seat count and the deck."""

    kind: str
    biddable_ranks: tuple[int, ...]
    lowest_rank: int
    base_target: int
    max_points: int
    allow_4_obbligato: bool
    forced_dealer: bool

    @property
    def opener_must_bid(self) -> bool:
        """True in both Povo variants: the first bidder may not pass."""
        return self.kind != MARCHIGIANO


def make_rules(kind: str, removed_twos: bool, two_decks: bool, allow_4_obbligato: bool,
               forced_dealer: bool) -> AuctionRules:
    """The auction rules of a variant for a deck with or without the 2s, one or two decks."""
    ranks = tuple(r for r in range(10) if not (removed_twos and r == Rank.DUE))
    lowest = max(ranks, key=lambda r: RANK_LEVEL[r])
    return AuctionRules(
        kind=kind,
        biddable_ranks=ranks,
        lowest_rank=lowest,
        base_target=121 if two_decks else 61,
        max_points=240 if two_decks else 120,
        allow_4_obbligato=allow_4_obbligato and lowest == Rank.DUE,
        forced_dealer=forced_dealer,
    )


def bid_level(rules: AuctionRules, action: int) -> int:
    """The level of a bid action (higher levels outbid lower ones)."""
    if action >= BID_POINTS:
        return action - BID_POINTS
    if action == BID_4_OBBLIGATO:
        return RANK_LEVEL[Rank.DUE]
    return RANK_LEVEL[action - BID_RANK]


def legal_bids(rules: AuctionRules, high: int, holds_two: bool, alone: bool) -> list[int]:
    """Sorted legal actions of a bidder who has not passed.

    ``high`` is the level of the highest bid so far (``NO_BID`` if none), ``holds_two`` whether
    the bidder holds a 2, ``alone`` whether every other bidder has passed.
    """
    legal: list[int] = []
    no_bid = high == NO_BID
    if not (no_bid and (rules.opener_must_bid or (rules.forced_dealer and alone))):
        legal.append(PASS)
    if rules.kind == PUNTI:
        low = rules.base_target if no_bid else high + 1
        legal.extend(range(BID_POINTS + low, BID_POINTS + rules.max_points + 1))
        return legal
    legal.extend(BID_RANK + r for r in rules.biddable_ranks if RANK_LEVEL[r] > high)
    if rules.allow_4_obbligato and holds_two and high < RANK_LEVEL[Rank.DUE]:
        legal.append(BID_4_OBBLIGATO)
    if high >= RANK_LEVEL[rules.lowest_rank]:
        low = max(rules.base_target + 1, high + 1)
        legal.extend(range(BID_POINTS + low, BID_POINTS + rules.max_points + 1))
    return legal


def called_rank(rules: AuctionRules, action: int) -> int:
    """The rank called by a winning bid (``Rank.QUATTRO`` for 4 obbligato); -1 for "a punti"."""
    if rules.kind == PUNTI:
        return -1
    if action >= BID_POINTS:
        return rules.lowest_rank
    if action == BID_4_OBBLIGATO:
        return Rank.QUATTRO
    return action - BID_RANK


def bid_target(rules: AuctionRules, action: int) -> int:
    """The point bid X of a winning bid, or the base target (61 or 121) for a rank bid."""
    return action - BID_POINTS if action >= BID_POINTS else rules.base_target


def is_bid(rules: AuctionRules, action: int) -> bool:
    """True for any bid action of this auction (legal or not at the moment)."""
    if rules.kind != PUNTI and (BID_RANK <= action <= BID_4_OBBLIGATO):
        return True
    return BID_POINTS + 1 <= action <= BID_POINTS + rules.max_points


def bid_name(rules: AuctionRules, action: int) -> str:
    """A short name: ``pass``, ``bid A``, ``bid 4 obbligato``, ``bid 2 a 63`` or ``bid 75``."""
    if action == PASS:
        return "pass"
    if action == BID_4_OBBLIGATO:
        return "bid 4 obbligato"
    if BID_RANK <= action < BID_4_OBBLIGATO:
        return f"bid {ITALIAN_RANK_LETTERS[action - BID_RANK]}"
    points = action - BID_POINTS
    if rules.kind == PUNTI:
        return f"bid {points}"
    return f"bid {ITALIAN_RANK_LETTERS[rules.lowest_rank]} a {points}"
