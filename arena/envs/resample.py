"""A world consistent with what one seat knows: the engine state with the cards the seat has
not seen permuted among their places, replayed with the same actions.

The current deal's unseen cards are shuffled (``arena.games.testing``'s consistent
resampling) and the later deals come from a fresh seed, so a search that samples worlds
learns nothing of cards still to be dealt. A world is kept only when the seat's observation
of it is identical to its observation of the real state; after ``TRIES`` misses the fresh
seed is dropped, and the real state's clone is the last resort (always consistent).
"""

from __future__ import annotations

import random
from typing import Any, Final

from arena.games import State
from arena.games.rng import MAX_SEED
from arena.games.testing.checks import resampled_deals

TRIES: Final = 8
"""Resampling attempts with a fresh seed, then as many with the real one."""


def replayed(state: State[Any], seed: int, deals: list[tuple[int, ...]]) -> State[Any] | None:
    """The state's actions replayed from ``seed`` and injected ``deals`` (None if one is
    illegal there)."""
    twin: State[Any] = state.game.new_initial_state(seed, deal=deals)
    for action in state.history():
        if action not in twin.legal_actions():
            return None
        twin.apply_action(action)
    return twin


def resample_world(state: State[Any], seat: int, rng: random.Random) -> State[Any]:
    """An engine state that ``seat`` cannot tell from ``state``."""
    seen = state.observation(seat)
    for attempt in range(2 * TRIES):
        seed = rng.randint(0, MAX_SEED) if attempt < TRIES else state.seed()
        deals = resampled_deals(state, seat, rng, frozenset())
        twin = replayed(state, seed, deals)
        if twin is not None and twin.observation(seat) == seen:
            return twin
    return state.clone()
