"""The engine API's own cost: a game that does nothing, played through ``State``'s methods.

Every decision of a random playout goes through ``is_terminal``, ``legal_actions`` and
``apply_action`` (checking the action and keeping the history) from a Python loop. This game
has three legal actions, forty decisions a match and no rules at all, so its rate is the
fastest any game built on the ``State`` API can reach from that loop; ``arena bench engine``
reports it beside the games.
"""

from __future__ import annotations

from arena.games import State
from arena.games.api import TERMINAL, DealInput, Game, Observation

DECISIONS = 40
"""Decisions per playout, as in a two-seat Briscola."""

ACTIONS = (0, 1, 2)


class FloorGame(Game):
    """Two seats, no cards, no rules."""

    def __init__(self) -> None:
        """No spec and no parameters: this game is never registered."""
        self.num_players = 2
        self.params = {}

    @property
    def id(self) -> str:
        """The name error messages give."""
        return "api-floor"

    def new_initial_state(self, seed: int, deal: DealInput = None) -> FloorState:
        """A new match."""
        return FloorState(self, seed)


class FloorState(State):
    """Forty decisions that change nothing but whose turn it is."""

    __slots__ = ("_left",)

    def __init__(self, game: FloorGame, seed: int) -> None:
        """Seat 0 to act."""
        super().__init__(game, seed, None)
        self._left = DECISIONS
        self._current = 0

    def _compute_legal(self) -> list[int]:
        """Always the same three actions."""
        return list(ACTIONS)

    def _apply(self, action: int) -> None:
        """Pass the turn; the match ends after the last decision."""
        self._left -= 1
        self._current = TERMINAL if not self._left else 1 - self._current

    def action_to_string(self, action: int) -> str:
        """The action's number."""
        return str(action)

    def observation(self, seat: int) -> Observation:
        """Not needed by the benchmark."""
        raise NotImplementedError("the floor game has no observations")
