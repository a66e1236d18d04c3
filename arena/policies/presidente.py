"""Heuristic for Presidente: shed low sets whole, keep the top ranks for later."""

from __future__ import annotations

from arena.games.api import Game, Observation
from arena.games.cards import ITALIAN_40
from arena.games.presidente import GIVE, MAX_SET, PASS, RANK, STRENGTHS

STRONG = 9
"""Strength of the top rank (the 2 in pagat order), kept for later while the hand is long."""
ENDGAME = 7
"""With this many cards or fewer, play the top rank too and break sets when needed."""


class HeuristicPolicy:
    """Leads its lowest rank whole, follows cheaply without breaking sets, returns low cards."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Read the rank order of the game."""
        self.seat = seat
        self.strength = STRENGTHS[str(game.params["rank_order"])]

    def act(self, observation: Observation) -> int:
        """Give back the lowest card, lead the lowest set, follow with the cheapest set."""
        legal = observation.legal_actions
        strength = self.strength
        hand = observation.hand
        counts = [0] * ITALIAN_40.ranks
        for card in hand:
            counts[RANK[card]] += 1
        if legal[0] >= GIVE:
            return min(legal, key=lambda a: (strength[RANK[a - GIVE]], counts[RANK[a - GIVE]], a))
        sets = [(strength[a // MAX_SET], a) for a in legal if a < PASS]
        if PASS not in legal:
            low = min(range(ITALIAN_40.ranks), key=lambda r: strength[r] if counts[r] else 99)
            return low * MAX_SET + counts[low] - 1
        whole = sorted((s, a) for s, a in sets if counts[a // MAX_SET] == a % MAX_SET + 1)
        endgame = len(hand) <= ENDGAME
        if whole and (whole[0][0] < STRONG or endgame):
            return whole[0][1]
        if endgame and sets:
            return min(sets)[1]
        return PASS
