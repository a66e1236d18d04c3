"""A heuristic High Card player: lead the card most likely to hold, win tricks cheaply."""

from __future__ import annotations

from math import comb

from arena.games.api import EventKind, Game, Observation
from cardarena_example_games.high_card import POINTS, STRENGTH, SUIT

DECK_SIZE = len(SUIT)


def played_this_hand(observation: Observation) -> set[int]:
    """The cards played face up since the current hand started."""
    played: set[int] = set()
    for event in observation.events:
        if event.kind == EventKind.HAND_START:
            played.clear()
        elif event.kind == EventKind.PLAY:
            played.update(event.cards)
    return played


def hold_chance(card: int, known: set[int], opponent_cards: int) -> float:
    """The chance that the opponent holds no unseen card of the suit stronger than ``card``."""
    unknown = DECK_SIZE - len(known)
    stronger = sum(1 for other in range(DECK_SIZE) if other not in known
                   and SUIT[other] == SUIT[card] and STRENGTH[other] > STRENGTH[card])
    return comb(unknown - stronger, opponent_cards) / comb(unknown, opponent_cards)


def cheapest(cards: list[int]) -> int:
    """The card worth the fewest points, the weakest on a tie."""
    return min(cards, key=lambda card: (POINTS[card], STRENGTH[card]))


class HeuristicPolicy:
    """Leads the card with the best expected points and wins or discards as cheaply as it can."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Nothing to prepare: the policy is deterministic."""
        self.seat = seat

    def act(self, observation: Observation) -> int:
        """The chosen card."""
        legal = list(observation.legal_actions)
        if observation.trick:
            led = observation.trick[0][1]
            winners = [card for card in legal
                       if SUIT[card] == SUIT[led] and STRENGTH[card] > STRENGTH[led]]
            if winners:
                return min(winners, key=lambda card: STRENGTH[card])
            return cheapest(legal)
        return self.lead(observation, legal)

    def lead(self, observation: Observation, legal: list[int]) -> int:
        """The lead that keeps the most points: a likely winner with points, else a cheap card."""
        known = played_this_hand(observation) | set(observation.hand)
        opponent_cards = observation.hand_sizes[1 - observation.seat]

        def value(card: int) -> float:
            """Expected points kept by leading ``card``, with the chance to win as a tie-break."""
            chance = hold_chance(card, known, opponent_cards)
            return (2 * chance - 1) * POINTS[card] + chance

        return max(legal, key=value)
