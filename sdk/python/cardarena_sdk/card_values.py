"""Each card's figures in the match's game, from MatchStart's ``card_values``: its points, its
trick strength (and who takes a trick), its rank strength or its capture value."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardarena_sdk.cards import DeckInfo

if TYPE_CHECKING:
    from arena.protocol.schema import agent as pb

NO_TRUMP = -1
"""The trump suit of a trick played without trumps."""


@dataclass(frozen=True, slots=True)
class CardValues:
    """The figures of every card of a match's deck; a table is empty where the game has none.

    ``points_table``, ``trick_strength_table``, ``rank_strength_table`` and
    ``capture_value_table`` are indexed by card id of ``deck``.
    """

    game_id: str
    deck: DeckInfo
    points_table: tuple[int, ...] = ()
    points_total: int = 0
    trick_strength_table: tuple[int, ...] = ()
    rank_strength_table: tuple[int, ...] = ()
    capture_value_table: tuple[int, ...] = ()

    @classmethod
    def from_message(cls, message: pb.CardValues, game_id: str, deck: DeckInfo) -> CardValues:
        """The figures of a ``CardValues`` message for ``deck``; a table that is neither empty
        nor as long as the deck is a ValueError."""
        deck_size = deck.size
        tables = {"points": message.points, "trick_strength": message.trick_strength,
                  "rank_strength": message.rank_strength, "capture_value": message.capture_value}
        for name, table in tables.items():
            if len(table) not in (0, deck_size):
                raise ValueError(f"{game_id}: card_values.{name} has {len(table)} entries for a "
                                 f"deck of {deck_size} cards")
        return cls(game_id, deck, tuple(message.points),
                   message.points_total,
                   tuple(message.trick_strength), tuple(message.rank_strength),
                   tuple(message.capture_value))

    @property
    def deck_size(self) -> int:
        """How many cards the deck has."""
        return self.deck.size

    @property
    def has_points(self) -> bool:
        """Whether the game counts card points."""
        return bool(self.points_table)

    @property
    def has_tricks(self) -> bool:
        """Whether the game is played in tricks (``strength``, ``beats``, ``trick_winner``)."""
        return bool(self.trick_strength_table)

    def _check(self, card: int) -> int:
        """``card`` itself; a hidden or unknown card is a ValueError (``DeckInfo.card``)."""
        self.deck.card(card)
        return card

    def _lookup(self, table: tuple[int, ...], name: str, card: int) -> int:
        """``table[card]``; a ValueError when the game has no such table."""
        self._check(card)
        if not table:
            raise ValueError(f"{self.game_id} has no {name}")
        return table[card]

    def points(self, card: int) -> int:
        """The card points ``card`` is worth when won (thirds of a point in the tressette
        games); 0 in a game without card points."""
        self._check(card)
        return self.points_table[card] if self.points_table else 0

    def points_of(self, cards: Iterable[int]) -> int:
        """The card points of several cards together."""
        return sum(self.points(card) for card in cards)

    def strength(self, card: int) -> int:
        """The trick strength of ``card``: within a suit, the higher takes the trick."""
        return self._lookup(self.trick_strength_table, "tricks (no trick strength)", card)

    def rank_strength(self, card: int) -> int:
        """The strength of ``card``'s rank where cards compete whatever their suit
        (presidente)."""
        return self._lookup(self.rank_strength_table, "rank strength", card)

    def capture_value(self, card: int) -> int:
        """The value ``card`` captures with in a fishing game (scopa: ace 1 ... king 10)."""
        return self._lookup(self.capture_value_table, "capture values", card)

    def beats(self, card: int, other: int, trump: int, led: int) -> bool:
        """Whether ``card``, played after ``other`` in a trick led in suit ``led`` with trump
        suit ``trump`` (-1: none), takes the trick from it.

        A trump beats every card of another suit; otherwise a card of the led suit beats every
        card of neither the led suit nor the trump; two cards of one suit go by trick strength,
        and of two cards of equal strength (the copies of one card, in two decks) the later,
        ``card``, wins. A card of neither the trump nor the led suit beats nothing.
        """
        suits = len(self.deck.suits)
        if not -1 <= trump < suits:
            raise ValueError(f"trump suit {trump} is not -1 (none) or a suit (0 .. {suits - 1})")
        if not 0 <= led < suits:
            raise ValueError(f"led suit {led} is not a suit (0 .. {suits - 1})")

        def rank(suit: int) -> int:
            """2 for a trump, 1 for the led suit, 0 for any other suit."""
            return 2 if trump >= 0 and suit == trump else 1 if suit == led else 0

        suit, other_suit = self._suit(card), self._suit(other)
        if suit != other_suit:
            return rank(suit) > rank(other_suit)
        return rank(suit) > 0 and self.strength(card) >= self.strength(other)

    def trick_winner(self, cards: Sequence[int], trump: int) -> int:
        """The index, in play order, of the card that takes a trick of ``cards`` (the first
        one led) with trump suit ``trump`` (-1: none)."""
        if not cards:
            raise ValueError("a trick needs at least one card")
        led = self._suit(cards[0])
        best = 0
        for index in range(1, len(cards)):
            if self.beats(cards[index], cards[best], trump, led):
                best = index
        return best

    def _suit(self, card: int) -> int:
        """The suit of a card of a trick game (a ValueError in a game without tricks)."""
        self.strength(card)
        return self.deck.cards[card].suit
