"""Rules of thumb for trick play shared by the heuristics: what this hand has shown, sure
winners, and trick play with briscola ranks."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.api import Event, EventKind, Observation
from arena.games.tricks import beats


def events_this_hand(observation: Observation) -> tuple[Event, ...]:
    """The events since the current hand started."""
    events = observation.events
    start = len(events)
    while start > 0 and events[start - 1].kind != EventKind.HAND_START:
        start -= 1
    return events[start:]


def played_this_hand(observation: Observation) -> set[int]:
    """Cards played face up so far in the current hand."""
    played: set[int] = set()
    for event in events_this_hand(observation):
        if event.kind == EventKind.PLAY:
            played.update(event.cards)
    return played


def is_master(card: int, gone: set[int], strength: Sequence[int]) -> bool:
    """True when no card of its suit still to be played (not in ``gone``) beats ``card``."""
    low = card - card % 10
    return all(other in gone or strength[other] < strength[card] for other in range(low, low + 10))


def current_winner(trick: Sequence[tuple[int, int]], suit_of: Sequence[int],
                   strength: Sequence[int], trump: int) -> tuple[int, int]:
    """(seat, card) currently winning a trick in progress."""
    best_seat, best = trick[0]
    for seat, card in trick[1:]:
        if card >= 0 and beats(card, best, suit_of, strength, trump):
            best_seat, best = seat, card
    return best_seat, best


def cheapest(cards: Sequence[int], points: Sequence[int], strength: Sequence[int],
             suit_of: Sequence[int], trump: int) -> int:
    """The card that gives away least: fewest points, not a trump, weakest."""
    return min(cards, key=lambda c: (points[c], suit_of[c] == trump, strength[c]))


def choose_card(hand: Sequence[int], trick: Sequence[tuple[int, int]], friends: set[int],
                foes_after: int, suit_of: Sequence[int], strength: Sequence[int],
                points: Sequence[int], trump: int) -> int:
    """A rule-of-thumb card for a trick with briscola ranks and points.

    Lead low; when a friend is winning, load points if no foe plays after; when a foe is
    winning, take the trick cheaply if it holds points, else play the cheapest card.
    """
    if not trick:
        return cheapest(hand, points, strength, suit_of, trump)
    winner_seat, winning = current_winner(trick, suit_of, strength, trump)
    on_table = sum(points[c] for _, c in trick if c >= 0)
    if winner_seat in friends:
        if foes_after == 0:
            loads = [c for c in hand if suit_of[c] != trump]
            if loads:
                return max(loads, key=lambda c: (points[c], strength[c]))
        return cheapest(hand, points, strength, suit_of, trump)
    takers = [c for c in hand if beats(c, winning, suit_of, strength, trump)]
    same_suit = [c for c in takers if suit_of[c] != trump]
    if same_suit and (foes_after == 0 or on_table + max(points[c] for c in same_suit) >= 10):
        return max(same_suit, key=lambda c: (points[c], strength[c])) if foes_after == 0 \
            else min(same_suit, key=lambda c: strength[c])
    if takers and on_table >= 10:
        return min(takers, key=lambda c: (suit_of[c] == trump, points[c], strength[c]))
    return cheapest(hand, points, strength, suit_of, trump)
