"""Trick-taking machinery shared by every trick game.

Tables are per card id (see ``Deck.per_card``), so a game builds them once and every call is
a few tuple lookups. A card beats the current winner when it is a trump and the winner is not,
or when it has the winner's suit and a strength at least as high: in one deck two cards of a
suit never tie, and with two decks (docs/games/chiamata.md) the later of two identical cards wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

NO_TRUMP: Final = -1


def beats(card: int, best: int, suit_of: Sequence[int], strength: Sequence[int],
          trump: int) -> bool:
    """True when ``card``, played later, takes the trick from ``best``."""
    suit = suit_of[card]
    best_suit = suit_of[best]
    if suit == best_suit:
        return strength[card] >= strength[best]
    return suit == trump


def trick_winner(cards: Sequence[int], suit_of: Sequence[int], strength: Sequence[int],
                 trump: int = NO_TRUMP) -> int:
    """The index (in play order) of the card that wins a complete trick."""
    best_index = 0
    best = cards[0]
    for index in range(1, len(cards)):
        card = cards[index]
        if beats(card, best, suit_of, strength, trump):
            best_index, best = index, card
    return best_index


def keyed_trick(trick: list[int], keys: tuple[int, ...],
                points: tuple[int, ...]) -> tuple[int, int]:
    """(winning index in play order, points) of a complete trick, ``keys`` being the per-card
    key table of its led suit and trump (``trick_key_tables``): the first highest key wins."""
    best, best_key, total = 0, keys[trick[0]], 0
    for index in range(len(trick)):
        played = trick[index]
        total += points[played]
        if keys[played] > best_key:
            best, best_key = index, keys[played]
    return best, total


def trick_key_tables(suit_of: Sequence[int], strength: Sequence[int],
                     num_suits: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per trump (the last index, -1, is no trump) and led suit: a key per card; highest wins.

    Keys: 200 + strength for a trump, 100 + strength for the led suit, 0 otherwise. Equal keys
    only arise with two decks; callers that must let the later card win compare with ``>=``.
    """
    tables = []
    for trump in [*range(num_suits), NO_TRUMP]:
        per_led = []
        for led in range(num_suits):
            per_led.append(tuple(
                200 + strength[card] if suit_of[card] == trump
                else 100 + strength[card] if suit_of[card] == led else 0
                for card in range(len(suit_of))
            ))
        tables.append(tuple(per_led))
    return tuple(tables)


def follow_suit(hand: Sequence[int], led_suit: int, suit_of: Sequence[int]) -> tuple[int, ...]:
    """The cards a player may play when they must follow the led suit."""
    same = tuple(card for card in hand if suit_of[card] == led_suit)
    return same if same else tuple(hand)


def follow_suit_or_trump(hand: Sequence[int], led_suit: int, trump: int,
                         suit_of: Sequence[int]) -> tuple[int, ...]:
    """Cards allowed when a void player must trump if able (``must_trump_if_void``)."""
    same = tuple(card for card in hand if suit_of[card] == led_suit)
    if same:
        return same
    trumps = tuple(card for card in hand if suit_of[card] == trump)
    return trumps if trumps else tuple(hand)


def card_points(cards: Sequence[int], points: Sequence[int]) -> int:
    """The sum of the card points of some cards."""
    return sum(points[card] for card in cards)


def seats_from(first: int, num_seats: int) -> list[int]:
    """Seats in playing order (counter-clockwise, increasing index) starting from ``first``."""
    return [(first + offset) % num_seats for offset in range(num_seats)]
