"""A world consistent with what one seat knows: the engine state with the cards the seat has
not seen permuted among their places, replayed with the same actions.

The current deal's unseen cards are shuffled (``arena.games.testing``'s consistent
resampling; the cards the rules set aside stay where they are) and the later deals come from
a fresh seed, so a search that samples worlds learns nothing of cards still to be dealt. A
world is kept only when the seat's observation of it is identical to its observation of the
real state; after ``TRIES`` misses the fresh seed is dropped, and the real state's clone is
the last resort (always consistent).
"""

from __future__ import annotations

import random
from typing import Any, Final

from arena.games import Game, State
from arena.games.rng import MAX_SEED
from arena.games.testing import out_of_play, playout
from arena.games.testing.checks import resampled_deals

TRIES: Final = 8
"""Resampling attempts with a fresh seed, then as many with the real one."""

SURVEY_SEEDS: Final = range(3)
"""Matches played to find the cards a configuration's rules set aside."""

_SET_ASIDE: dict[tuple[str, int, tuple[tuple[str, object], ...]], frozenset[int]] = {}


def set_aside(game: Game) -> frozenset[int]:
    """The cards the rules of a configuration never put in play (found once per
    configuration from a few matches): they keep their place in a resampled deal, since
    where they lie decides which cards are dealt."""
    key = (game.id, game.num_players, tuple(sorted(game.params.items())))
    if key not in _SET_ASIDE:
        _SET_ASIDE[key] = out_of_play(game, [playout(game, seed) for seed in SURVEY_SEEDS])
    return _SET_ASIDE[key]


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
        deals = resampled_deals(state, seat, rng, set_aside(state.game))
        twin = replayed(state, seed, deals)
        if twin is not None and twin.observation(seat) == seen:
            return twin
    return state.clone()
