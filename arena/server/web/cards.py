"""Cards as the web pages draw them: rank, suit symbol, colour and names."""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.cards import HIDDEN, Deck

RED_SUITS = frozenset("♥♦")
"""Suit symbols drawn in red."""


@dataclass(frozen=True)
class CardFace:
    """One card as drawn: its code (``7D``), rank and suit symbol, or a face-down back."""

    code: str
    rank: str
    suit: str
    name: str
    red: bool = False

    @property
    def hidden(self) -> bool:
        """True for a face-down card."""
        return self.code == "??"

    @property
    def text(self) -> str:
        """The card's short form with its suit symbol, such as ``7♦``."""
        return "??" if self.hidden else f"{self.rank}{self.suit}"


BACK = CardFace(code="??", rank="", suit="", name="face-down card")
"""A card whose face this view does not show."""


def card_face(deck: Deck, card: int) -> CardFace:
    """How ``card`` of ``deck`` is drawn (``HIDDEN`` gives the back)."""
    if card == HIDDEN:
        return BACK
    symbol = deck.suit_symbols[deck.suit(card)]
    rank = deck.rank_letters[deck.rank(card)]
    if rank == "T":
        rank = "10"
    return CardFace(code=deck.short(card), rank=rank, suit=symbol, name=deck.long_name(card),
                    red=symbol in RED_SUITS)


def card_faces(deck: Deck, cards: tuple[int, ...] | list[int]) -> tuple[CardFace, ...]:
    """Several cards as drawn."""
    return tuple(card_face(deck, card) for card in cards)
