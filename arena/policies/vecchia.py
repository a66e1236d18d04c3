"""Heuristic for Vecchia: every position of the reshuffled offered hand is equally good."""

from __future__ import annotations

from arena.games.api import Game, Observation


class HeuristicPolicy:
    """Takes the first legal action: the game reshuffles the offered hand, so no draw is better."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Remember the seat; the policy is deterministic."""
        self.seat = seat

    def act(self, observation: Observation) -> int:
        """The first legal action (the forced discard, or the first position)."""
        return observation.legal_actions[0]
