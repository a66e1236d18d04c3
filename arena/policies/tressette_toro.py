"""Heuristic for Tressette incrociato: the Tressette heuristic at whichever table is to play."""

from __future__ import annotations

from arena.games.api import Game, Observation
from arena.games.cards import ITALIAN_120
from arena.games.tressette_core import NUM_ACCUSI
from arena.games.tressette_toro import (
    EXTRAS_PER_TABLE,
    SIGNAL_BASE,
    TABLE_ACTION_BASE,
    table_of_action,
    table_seats,
)
from arena.policies.tressette import choose_action, read_table


class HeuristicPolicy:
    """Finds the table to play from the legal actions and plays it like 4-seat Tressette."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Remember the seat; the policy is deterministic."""
        self.seat = seat

    def act(self, observation: Observation) -> int:
        """The chosen action."""
        legal = observation.legal_actions
        table = table_of_action(legal[0])
        order = table_seats(table, observation.hand_number)
        local = order.index(self.seat)
        partners = frozenset({order[(local + 2) % 4]})
        view = read_table(observation, table, order, partners)
        base = TABLE_ACTION_BASE + table * EXTRAS_PER_TABLE
        return choose_action(view, legal, ITALIAN_120.size, range(base, base + NUM_ACCUSI),
                             base + NUM_ACCUSI, base + NUM_ACCUSI + 1, SIGNAL_BASE)
