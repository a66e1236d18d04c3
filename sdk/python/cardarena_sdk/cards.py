"""The deck of a match, from its MatchStart: card names, suits and ranks without tables."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.protocol.schema import agent as pb

HIDDEN = -1
"""A card the seat may not see, in observations and events."""

HIDDEN_NAME = "??"
"""What ``card_name`` shows for a hidden card."""

DECKS_KEPT = 8
"""Decks of different MatchStart messages kept, read once each."""

NAME_STYLES = ("code", "symbol", "name", "italian")
"""The styles of ``card_name``: "7D", "7♦", "seven of coins", "sette di denari"."""


@dataclass(frozen=True, slots=True)
class CardInfo:
    """One card of the deck with its names, suit, rank and copy."""

    id: int
    code: str
    symbol: str
    name: str
    italian_name: str
    suit: int
    rank: int
    copy: int

    @classmethod
    def from_message(cls, message: pb.Card) -> CardInfo:
        """The card of a ``Card`` message."""
        return cls(message.id, message.code, message.symbol, message.name,
                   message.italian_name, message.suit, message.rank, message.copy)


@dataclass(frozen=True, slots=True)
class DeckInfo:
    """The cards of a match by id, with suit and rank names."""

    name: str
    cards: tuple[CardInfo, ...]
    suits: tuple[str, ...]
    ranks: tuple[str, ...]

    @classmethod
    def from_message(cls, message: pb.Deck) -> DeckInfo:
        """The deck of a ``Deck`` message; card ids must be 0 .. len(cards) - 1 in order (the
        decks of the last few messages are kept, as every match of a game sends the same)."""
        if cls is DeckInfo:
            return _deck_of(message.SerializeToString(deterministic=True))
        return cls._read(message)

    @classmethod
    def _read(cls, message: pb.Deck) -> DeckInfo:
        """The deck of a ``Deck`` message, read card by card."""
        cards = tuple(CardInfo.from_message(card) for card in message.cards)
        for index, card in enumerate(cards):
            if card.id != index:
                raise ValueError(f"deck {message.name!r}: card {index} has id {card.id}; "
                                 f"ids must be 0 .. {len(cards) - 1} in order")
        return cls(message.name, cards, tuple(message.suits), tuple(message.ranks))

    @property
    def size(self) -> int:
        """How many cards the deck has."""
        return len(self.cards)

    def card(self, card: int) -> CardInfo:
        """The card with id ``card``; a hidden or unknown id is a ValueError."""
        if card == HIDDEN:
            raise ValueError("card -1 is hidden: the seat may not see it")
        if not 0 <= card < len(self.cards):
            raise ValueError(f"card {card} is not in the {self.name} deck "
                             f"(ids 0 .. {len(self.cards) - 1})")
        return self.cards[card]

    def card_name(self, card: int, style: str = "code") -> str:
        """The name of a card in one of ``NAME_STYLES``; "??" for a hidden card."""
        if card == HIDDEN:
            return HIDDEN_NAME
        info = self.card(card)
        if style == "code":
            return info.code
        if style == "symbol":
            return info.symbol
        if style == "name":
            return info.name
        if style == "italian":
            return info.italian_name
        raise ValueError(f"unknown card name style {style!r}; styles: {', '.join(NAME_STYLES)}")

    def card_names(self, cards: Iterable[int], style: str = "code") -> list[str]:
        """The names of several cards, in order."""
        return [self.card_name(card, style) for card in cards]

    def suit_of(self, card: int) -> int:
        """The suit index of a card."""
        return self.card(card).suit

    def rank_of(self, card: int) -> int:
        """The rank index of a card (the deck's order, lowest first), not its strength in the
        game: ``CardValues`` has that."""
        return self.card(card).rank

    def copy_of(self, card: int) -> int:
        """Which copy of the card, in decks made of several identical decks (0 otherwise)."""
        return self.card(card).copy

    def suit_name(self, suit: int) -> str:
        """The English name of a suit index."""
        if not 0 <= suit < len(self.suits):
            raise ValueError(f"suit {suit} is not a suit of the {self.name} deck "
                             f"(0 .. {len(self.suits) - 1})")
        return self.suits[suit]

    def rank_name(self, rank: int) -> str:
        """The English name of a rank index."""
        if not 0 <= rank < len(self.ranks):
            raise ValueError(f"rank {rank} is not a rank of the {self.name} deck "
                             f"(0 .. {len(self.ranks) - 1})")
        return self.ranks[rank]

    def cards_of_suit(self, suit: int) -> list[int]:
        """Every card id of a suit, in id order."""
        return [card.id for card in self.cards if card.suit == suit]

    def card_id(self, text: str) -> int:
        """The id of a card given by its code or symbol form ("7D", "7♦"); the first copy wins."""
        wanted = text.strip()
        for card in self.cards:
            if wanted in (card.code, card.symbol):
                return card.id
        folded = wanted.casefold()
        for card in self.cards:
            if folded in (card.code.casefold(), card.name.casefold(),
                          card.italian_name.casefold()):
                return card.id
        raise ValueError(f"no card {text!r} in the {self.name} deck")


def card_name(deck: DeckInfo, card: int, style: str = "code") -> str:
    """The name of ``card`` in ``deck`` (see ``DeckInfo.card_name``)."""
    return deck.card_name(card, style)


def suit_of(deck: DeckInfo, card: int) -> int:
    """The suit index of ``card`` in ``deck``."""
    return deck.suit_of(card)


def rank_of(deck: DeckInfo, card: int) -> int:
    """The rank index of ``card`` in ``deck``."""
    return deck.rank_of(card)


@lru_cache(maxsize=DECKS_KEPT)
def _deck_of(data: bytes) -> DeckInfo:
    """The deck of a serialized ``Deck`` message (kept: a DeckInfo is immutable)."""
    from arena.protocol.schema import agent as schema

    return DeckInfo._read(schema.Deck.FromString(data))
