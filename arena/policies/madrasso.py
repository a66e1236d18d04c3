"""Heuristic for Madrasso: cash sure winners, Briscola trick play within follow-suit, swap up."""

from __future__ import annotations

from arena.games.api import Game, Observation
from arena.games.madrasso import NUM_SEATS, POINTS, SEVEN_OF, STRENGTH, SUIT, SWAP_SEVEN
from arena.policies.trick_play import choose_card, current_winner, is_master, played_this_hand


class HeuristicPolicy:
    """Cashes sure winners, loads a partner's trick, takes points cheaply, swaps the seven up."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Remember the seat; the policy is deterministic."""
        self.seat = seat

    def act(self, observation: Observation) -> int:
        """Swap the seven for a stronger face-up card, cash a sure winner, else trick play."""
        legal = observation.legal_actions
        trump = observation.trump_suit
        if SWAP_SEVEN in legal and STRENGTH[observation.trump_card] > STRENGTH[SEVEN_OF[trump]]:
            return SWAP_SEVEN
        cards = [action for action in legal if action != SWAP_SEVEN]
        seat = observation.seat
        friends = {seat, *observation.teammates}
        trick = observation.trick
        later = [(seat + k) % NUM_SEATS for k in range(1, NUM_SEATS - len(trick))]
        foes_after = sum(1 for s in later if s not in friends)
        sure = self._sure_winner(observation, cards, friends, foes_after)
        if sure is not None:
            return sure
        return choose_card(cards, trick, friends, foes_after, SUIT, STRENGTH, POINTS, trump)

    def _sure_winner(self, observation: Observation, cards: list[int], friends: set[int],
                     foes_after: int) -> int | None:
        """A non-trump card with points that no card still out can beat in its suit."""
        trump = observation.trump_suit
        trick = observation.trick
        gone = played_this_hand(observation) | set(observation.hand)
        if trick:
            winner_seat, winning = current_winner(trick, SUIT, STRENGTH, trump)
            if winner_seat in friends or SUIT[winning] != SUIT[trick[0][1]] or foes_after == 0:
                return None
            choices = [c for c in cards if SUIT[c] == SUIT[winning] and SUIT[c] != trump
                       and STRENGTH[c] > STRENGTH[winning] and is_master(c, gone, STRENGTH)]
        else:
            choices = [c for c in cards
                       if SUIT[c] != trump and POINTS[c] and is_master(c, gone, STRENGTH)]
        return max(choices, key=lambda c: (POINTS[c], c)) if choices else None
