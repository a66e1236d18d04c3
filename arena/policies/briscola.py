"""Heuristic for Briscola and Briscola a 31: sensible trick play, declare 31 when it is true."""

from __future__ import annotations

from arena.games.api import Game, Observation
from arena.games.briscola import DECLARE_31, DECLARE_TARGET, POINTS, STRENGTH, SUIT, SWAP_TRUMP
from arena.policies.trick_play import choose_card


class HeuristicPolicy:
    """Leads low, loads a partner's trick, takes tricks with points cheaply."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Remember the seat; the policy is deterministic."""
        self.seat = seat

    def act(self, observation: Observation) -> int:
        """Declare a true 31, take a worthwhile trump swap, else choose a card."""
        legal = observation.legal_actions
        seat = observation.seat
        friends = {seat, *observation.teammates}
        if DECLARE_31 in legal:
            side = sum(observation.points[s] for s in friends)
            if side >= DECLARE_TARGET:
                return DECLARE_31
        if SWAP_TRUMP in legal:
            return SWAP_TRUMP
        cards = [a for a in legal if a < DECLARE_31]
        n = observation.num_seats
        played = len(observation.trick)
        later = [(seat + k) % n for k in range(1, n - played)]
        foes_after = sum(1 for s in later if s not in friends)
        return choose_card(cards, observation.trick, friends, foes_after, SUIT, STRENGTH, POINTS,
                           observation.trump_suit)
