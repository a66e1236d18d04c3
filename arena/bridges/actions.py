"""The size of a game's flat action space: one more than its highest action id."""

from __future__ import annotations

import importlib
from typing import Final

from arena.games import Game

ACTION_COUNT_MODULES: Final = {"arena.games.scopa": "arena.games.scopa_captures"}
"""Built-in game modules whose ``NUM_ACTIONS`` lives in a helper module."""


def num_actions(game: Game) -> int:
    """How many action ids a game has: its ``num_distinct_actions`` attribute, else its
    module's ``NUM_ACTIONS`` (every built-in game's), else its deck size (a plugin whose
    actions are the card ids)."""
    declared = getattr(game, "num_distinct_actions", None)
    if isinstance(declared, int):
        return declared
    name = type(game).__module__
    module = importlib.import_module(ACTION_COUNT_MODULES.get(name, name))
    count = getattr(module, "NUM_ACTIONS", None)
    return count if isinstance(count, int) else game.deck.size
