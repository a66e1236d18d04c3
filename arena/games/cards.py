"""Decks, card ids, card names and rank orders.

A card is a small int. Three decks exist:

- ``ITALIAN_40``: id = suit * 10 + rank, suits coppe, denari, bastoni, spade (shown as the
  French suits ♥ ♦ ♣ ♠), ranks A, 2-7, Fante (F), Cavallo (C), Re (R).
- ``ITALIAN_80``: two Italian decks; id = copy * 40 + Italian id, so ``id % 40`` is the card
  and ``id // 40`` the copy (``a`` or ``b`` in the compact text form, e.g. ``7Da``).
- ``ITALIAN_120``: three Italian decks (copies ``a``, ``b``, ``c``), for three tables at once.
- ``FRENCH_52``: id = suit * 13 + rank, suits clubs, diamonds, hearts, spades, ranks 2..10,
  J, Q, K, A (rank 12 is the ace).

Compact text forms: ``7D``, ``AS``, ``RC`` (Italian, suit letters C D B S) or with suit
symbols ``7♦``; French cards are ``TH``, ``QS``, ``10♥``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from mypy_extensions import i64

COPY_LETTERS: Final = "abc"
HIDDEN: Final = -1
"""Stands for a face-down card in observations."""
MASK_DECK_LIMIT: Final = 62
"""Decks up to this size can hold a set of cards as the bits of one machine integer."""
CARD_BIT: Final[tuple[int, ...]] = tuple(1 << card for card in range(MASK_DECK_LIMIT + 1))
"""``1 << card`` as a table (mypyc miscompiles a shift of the literal 1 past 31 bits)."""


class Suit(IntEnum):
    """The four Italian suits."""

    COPPE = 0
    DENARI = 1
    BASTONI = 2
    SPADE = 3


class Rank(IntEnum):
    """The ten Italian ranks, in deck order."""

    ASSO = 0
    DUE = 1
    TRE = 2
    QUATTRO = 3
    CINQUE = 4
    SEI = 5
    SETTE = 6
    FANTE = 7
    CAVALLO = 8
    RE = 9


ITALIAN_SUIT_LETTERS = ("C", "D", "B", "S")
ITALIAN_SUIT_SYMBOLS = ("♥", "♦", "♣", "♠")
ITALIAN_SUIT_NAMES_IT = ("coppe", "denari", "bastoni", "spade")
ITALIAN_SUIT_NAMES_EN = ("cups", "coins", "clubs", "swords")
ITALIAN_RANK_LETTERS = ("A", "2", "3", "4", "5", "6", "7", "F", "C", "R")
ITALIAN_RANK_NAMES_IT = (
    "asso", "due", "tre", "quattro", "cinque", "sei", "sette", "fante", "cavallo", "re",
)
ITALIAN_RANK_NAMES_EN = (
    "ace", "two", "three", "four", "five", "six", "seven", "jack", "knight", "king",
)

FRENCH_SUIT_LETTERS = ("C", "D", "H", "S")
FRENCH_SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
FRENCH_SUIT_NAMES_EN = ("clubs", "diamonds", "hearts", "spades")
FRENCH_SUIT_NAMES_IT = ("fiori", "quadri", "cuori", "picche")
FRENCH_RANK_LETTERS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
FRENCH_RANK_NAMES_EN = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace",
)
FRENCH_RANK_NAMES_IT = (
    "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove", "dieci",
    "fante", "donna", "re", "asso",
)

# Per Italian rank index (A, 2, 3, 4, 5, 6, 7, F, C, R); higher strength wins.
BRISCOLA_STRENGTH = (9, 0, 8, 1, 2, 3, 4, 5, 6, 7)
BRISCOLA_POINTS = (11, 0, 10, 0, 0, 0, 0, 2, 3, 4)
TRESSETTE_STRENGTH = (7, 8, 9, 0, 1, 2, 3, 4, 5, 6)
TRESSETTE_THIRDS = (3, 1, 1, 0, 0, 0, 0, 1, 1, 1)
"""Tressette card points in thirds of a point (an ace is 3/3, a figure or a 2 or 3 is 1/3)."""
SCOPA_VALUE = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
PRIMIERA_VALUE = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)

BRISCOLA_ORDER = (Rank.ASSO, Rank.TRE, Rank.RE, Rank.CAVALLO, Rank.FANTE,
                  Rank.SETTE, Rank.SEI, Rank.CINQUE, Rank.QUATTRO, Rank.DUE)
"""Italian ranks from strongest to weakest in briscola order."""


@dataclass(frozen=True)
class Deck:
    """A deck: its size, per-card suit and rank tables, and card names."""

    name: str
    size: int
    suits: int
    ranks: int
    copies: int
    suit_letters: tuple[str, ...]
    suit_symbols: tuple[str, ...]
    suit_names_it: tuple[str, ...]
    suit_names_en: tuple[str, ...]
    rank_letters: tuple[str, ...]
    rank_names_it: tuple[str, ...]
    rank_names_en: tuple[str, ...]

    @property
    def cards(self) -> range:
        """Every card id of the deck."""
        return range(self.size)

    def suit(self, card: int) -> int:
        """The suit index of a card."""
        return (card % (self.suits * self.ranks)) // self.ranks

    def rank(self, card: int) -> int:
        """The rank index of a card."""
        return card % self.ranks

    def copy(self, card: int) -> int:
        """Which copy of the card this is (0 unless the deck is doubled)."""
        return card // (self.suits * self.ranks)

    def base(self, card: int) -> int:
        """The card without its copy: the same id for both copies of a doubled deck."""
        return card % (self.suits * self.ranks)

    def card(self, suit: int, rank: int, copy: int = 0) -> int:
        """The id of a card from its suit, rank and copy."""
        return copy * self.suits * self.ranks + suit * self.ranks + rank

    def suit_table(self) -> tuple[int, ...]:
        """Suit index per card id, for fast lookups."""
        return tuple(self.suit(c) for c in self.cards)

    def rank_table(self) -> tuple[int, ...]:
        """Rank index per card id, for fast lookups."""
        return tuple(self.rank(c) for c in self.cards)

    def per_card(self, rank_values: tuple[int, ...]) -> tuple[int, ...]:
        """Expand a per-rank table (strength, points) to a per-card table."""
        return tuple(rank_values[self.rank(c)] for c in self.cards)

    def short(self, card: int, symbols: bool = False) -> str:
        """The compact text form of a card, such as ``7D`` or ``7♦``."""
        if card == HIDDEN:
            return "??"
        suit = (self.suit_symbols if symbols else self.suit_letters)[self.suit(card)]
        text = self.rank_letters[self.rank(card)] + suit
        if self.copies > 1:
            text += COPY_LETTERS[self.copy(card)]
        return text

    def long_name(self, card: int, lang: str = "en") -> str:
        """The full name of a card in Italian (``it``) or English (``en``)."""
        if card == HIDDEN:
            return "carta coperta" if lang == "it" else "face-down card"
        if lang == "it":
            name = f"{self.rank_names_it[self.rank(card)]} di {self.suit_names_it[self.suit(card)]}"
        elif lang == "en":
            name = f"{self.rank_names_en[self.rank(card)]} of {self.suit_names_en[self.suit(card)]}"
        else:
            raise ValueError(f"unknown language {lang!r}: choose 'it' or 'en'")
        if self.copies > 1:
            name += f" ({COPY_LETTERS[self.copy(card)]})"
        return name

    def parse(self, text: str) -> int:
        """The card id for a compact text form such as ``7D``, ``7♦``, ``10H`` or ``7Db``."""
        body = text.strip()
        copy = 0
        if self.copies > 1 and body and body[-1] in COPY_LETTERS[:self.copies]:
            copy = COPY_LETTERS.index(body[-1])
            body = body[:-1]
        if len(body) < 2:
            raise ValueError(f"not a card of the {self.name} deck: {text!r}")
        rank_text, suit_text = body[:-1].upper(), body[-1].upper()
        if rank_text == "10" and "T" in self.rank_letters:
            rank_text = "T"
        if suit_text in self.suit_letters:
            suit = self.suit_letters.index(suit_text)
        elif suit_text in self.suit_symbols:
            suit = self.suit_symbols.index(suit_text)
        else:
            raise ValueError(f"not a card of the {self.name} deck: {text!r} (unknown suit)")
        if rank_text not in self.rank_letters:
            raise ValueError(f"not a card of the {self.name} deck: {text!r} (unknown rank)")
        return self.card(suit, self.rank_letters.index(rank_text), copy)


ITALIAN_40: Final = Deck(
    "italian-40", 40, 4, 10, 1,
    ITALIAN_SUIT_LETTERS, ITALIAN_SUIT_SYMBOLS, ITALIAN_SUIT_NAMES_IT, ITALIAN_SUIT_NAMES_EN,
    ITALIAN_RANK_LETTERS, ITALIAN_RANK_NAMES_IT, ITALIAN_RANK_NAMES_EN,
)
ITALIAN_80: Final = Deck(
    "italian-80", 80, 4, 10, 2,
    ITALIAN_SUIT_LETTERS, ITALIAN_SUIT_SYMBOLS, ITALIAN_SUIT_NAMES_IT, ITALIAN_SUIT_NAMES_EN,
    ITALIAN_RANK_LETTERS, ITALIAN_RANK_NAMES_IT, ITALIAN_RANK_NAMES_EN,
)
ITALIAN_120: Final = Deck(
    "italian-120", 120, 4, 10, 3,
    ITALIAN_SUIT_LETTERS, ITALIAN_SUIT_SYMBOLS, ITALIAN_SUIT_NAMES_IT, ITALIAN_SUIT_NAMES_EN,
    ITALIAN_RANK_LETTERS, ITALIAN_RANK_NAMES_IT, ITALIAN_RANK_NAMES_EN,
)
FRENCH_52: Final = Deck(
    "french-52", 52, 4, 13, 1,
    FRENCH_SUIT_LETTERS, FRENCH_SUIT_SYMBOLS, FRENCH_SUIT_NAMES_IT, FRENCH_SUIT_NAMES_EN,
    FRENCH_RANK_LETTERS, FRENCH_RANK_NAMES_IT, FRENCH_RANK_NAMES_EN,
)

DECKS = {deck.name: deck for deck in (ITALIAN_40, ITALIAN_80, ITALIAN_120, FRENCH_52)}


def insert_sorted(cards: list[int], card: int) -> None:
    """Insert ``card`` into the sorted list ``cards`` after any equal card (as ``insort``)."""
    index = len(cards)
    while index and cards[index - 1] > card:
        index -= 1
    cards.insert(index, card)


def remove_card(cards: list[int], card: int) -> None:
    """Remove the first ``card`` from ``cards``, which holds it (``list.remove`` on ints).

    Compiled, ``pop`` at an index is a direct call where ``del`` goes through the generic
    item deletion (about 300 instructions)."""
    index = 0
    while cards[index] != card:
        index += 1
    cards.pop(index)


_IDS: Final[dict[int, tuple[int, ...]]] = {}
"""Per deck size, its card ids in order."""

_BYTE_BITS: Final = 8
_BYTE_MASK: Final = 0xFF
_BYTE_TABLES: Final[dict[int, tuple[tuple[tuple[int, ...], ...], ...]]] = {}
"""Per deck size, per byte of a card mask, the cards of that byte whose bit each of the 256
values of the byte lacks: ``[size][byte][value]``."""


def _byte_tables(size: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The byte tables of a deck size (made on first use)."""
    tables = _BYTE_TABLES.get(size)
    if tables is None:
        tables = _BYTE_TABLES[size] = tuple(
            tuple(tuple(card for card in range(first, min(first + _BYTE_BITS, size))
                        if not value >> (card - first) & 1)
                  for value in range(_BYTE_MASK + 1))
            for first in range(0, size, _BYTE_BITS))
    return tables


def cards_outside(taken: i64, size: int) -> tuple[int, ...]:
    """The card ids below ``size`` (at most ``MASK_DECK_LIMIT``) whose bit ``taken`` lacks,
    ascending: joined a byte of the mask at a time from prebuilt tables."""
    if not taken:
        ids = _IDS.get(size)
        if ids is None:
            ids = _IDS[size] = tuple(range(size))
        return ids
    left: list[int] = []
    for table in _byte_tables(size):
        left.extend(table[taken & _BYTE_MASK])
        taken >>= _BYTE_BITS
    return tuple(left)
