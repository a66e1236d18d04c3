"""Heuristic for Scopa and Scopone: take valuable cards and sweeps, leave no easy sweep."""

from __future__ import annotations

from arena.games.api import EventKind, Game, Observation
from arena.games.cards import HIDDEN
from arena.games.scopa_captures import VALUE, decode
from arena.games.scopa_scoring import SETTEBELLO, SUIT
from arena.policies.trick_play import events_this_hand

DENARI = 1
SCOPA_BONUS = 12.0
SWEEP_RISK = 7.0
CARD_WORTH = tuple(
    1.0 + (1.0 if SUIT[card] == DENARI else 0.0) + (8.0 if card == SETTEBELLO else 0.0)
    + {7: 2.5, 6: 1.0, 1: 0.7}.get(VALUE[card], 0.0)
    for card in range(40)
)
"""How much taking a card is worth: a card, a coin, the settebello, primiera cards."""
_SEEN_KINDS = (EventKind.PLAY, EventKind.CAPTURE, EventKind.DEAL)


def seen_this_hand(observation: Observation) -> set[int]:
    """Cards the seat has seen this hand: its hand, the table and every public card."""
    seen = set(observation.hand) | set(observation.table)
    for event in events_this_hand(observation):
        if event.kind in _SEEN_KINDS:
            seen.update(event.cards)
    seen.discard(HIDDEN)
    return seen


class HeuristicPolicy:
    """Scores each action by what it takes, what it gives away and the sweep it leaves."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Remember the seat; the policy is deterministic."""
        self.seat = seat

    def act(self, observation: Observation) -> int:
        """The legal action with the best score (the lowest id on ties)."""
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        table = observation.table
        seen = seen_this_hand(observation)
        unseen_values = {VALUE[card] for card in range(40) if card not in seen}
        cards_left = sum(observation.hand_sizes) + observation.stock_size
        best, best_score = legal[0], float("-inf")
        for action in legal:
            score = self._score(action, table, unseen_values, cards_left)
            if score > best_score:
                best, best_score = action, score
        return best

    @staticmethod
    def _score(action: int, table: tuple[int, ...], unseen_values: set[int],
               cards_left: int) -> float:
        """Gain of the taken cards, minus the card given away and the sweep risk left."""
        card, taken = decode(action, table)
        if taken:
            rest = [other for other in table if other not in taken]
            score = CARD_WORTH[card] + sum(CARD_WORTH[other] for other in taken)
            if not rest and cards_left > 1:
                score += SCOPA_BONUS
        else:
            rest = [*table, card]
            score = -CARD_WORTH[card] - 0.05 * VALUE[card]
        if rest and cards_left > 1:
            total = sum(VALUE[other] for other in rest)
            if total <= 10 and total in unseen_values:
                score -= SWEEP_RISK + 0.3 * sum(CARD_WORTH[other] for other in rest)
        return score
