"""Heuristic for Tressette a non prendere: take one point early, then duck and shed aces."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.games.api import Game, Observation
from arena.games.cards import HIDDEN
from arena.games.tressette_non_prendere import NUM_SEATS, STRENGTH, SUIT, THIRDS
from arena.policies.trick_play import is_master, played_this_hand

SAFE_THIRDS = 3
"""Thirds a seat needs to score its one point."""
LATE_CARDS = 9
"""With this many cards left, a seat without its point also tries tricks it may not win."""


def danger(card: int, suit_count: Counter[int]) -> int:
    """How likely a card is to win a trick with points: its points, rank, and a short suit."""
    short = max(0, 4 - suit_count[SUIT[card]])
    return 4 * THIRDS[card] + 2 * STRENGTH[card] + short * STRENGTH[card] // 3


def most_dangerous(cards: Sequence[int], hand: Sequence[int]) -> int:
    """The card to pass, set aside or shed."""
    counts = Counter(SUIT[card] for card in hand)
    return max(cards, key=lambda card: (danger(card, counts), card))


def winning_card(trick: Sequence[tuple[int, int]]) -> int:
    """The card now winning a trick in progress (the highest of the led suit)."""
    led = SUIT[trick[0][1]]
    return max((card for _, card in trick if SUIT[card] == led), key=lambda c: STRENGTH[c])


def gone_cards(observation: Observation) -> set[int]:
    """Cards out of the fight this hand: played, in hand, or set aside where the seat saw it."""
    gone = played_this_hand(observation) | set(observation.hand)
    gone.update(card for card in observation.table if card != HIDDEN)
    return gone


class HeuristicPolicy:
    """Wins a sure trick with points until it has a point; then ducks and sheds dangerous cards."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Remember the seat; the policy is deterministic."""
        self.seat = seat

    def act(self, observation: Observation) -> int:
        """Pass or set aside the most dangerous card; in play, get one point, then duck."""
        legal = list(observation.legal_actions)
        if observation.phase != "play":
            return most_dangerous(legal, observation.hand)
        trick = observation.trick
        needy = observation.points[observation.seat] < SAFE_THIRDS
        if needy:
            grab = self._grab(observation, legal)
            if grab is not None:
                return grab
        if not trick:
            return min(legal, key=lambda card: (STRENGTH[card], THIRDS[card], card))
        if SUIT[legal[0]] != SUIT[trick[0][1]]:
            return most_dangerous(legal, observation.hand)
        best = STRENGTH[winning_card(trick)]
        under = [card for card in legal if STRENGTH[card] < best]
        if under:
            return max(under, key=lambda card: (STRENGTH[card], card))
        if len(trick) == NUM_SEATS - 1:
            return max(legal, key=lambda card: (STRENGTH[card], THIRDS[card]))
        return min(legal, key=lambda card: (THIRDS[card], STRENGTH[card]))

    def _grab(self, observation: Observation, legal: list[int]) -> int | None:
        """A card that surely wins a trick with points, or None."""
        trick = observation.trick
        gone = gone_cards(observation)
        if not trick:
            sure = [card for card in legal if THIRDS[card] and is_master(card, gone, STRENGTH)]
            if sure:
                return max(sure, key=lambda card: (THIRDS[card], card))
            if len(observation.hand) <= LATE_CARDS:
                return max(legal, key=lambda card: (STRENGTH[card], THIRDS[card]))
            return None
        if SUIT[legal[0]] != SUIT[trick[0][1]]:
            return None
        best = STRENGTH[winning_card(trick)]
        last = len(trick) == NUM_SEATS - 1
        on_table = sum(THIRDS[card] for _, card in trick)
        over = [card for card in legal if STRENGTH[card] > best and on_table + THIRDS[card] > 0]
        sure = [card for card in over if last or is_master(card, gone, STRENGTH)]
        if sure:
            return max(sure, key=lambda card: (THIRDS[card], -STRENGTH[card]))
        if over and len(observation.hand) <= LATE_CARDS:
            return max(over, key=lambda card: STRENGTH[card])
        return None
