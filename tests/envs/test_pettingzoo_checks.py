"""PettingZoo's own checks, unchanged, over every game id and seat count.

``max_cycles_test`` does not apply: it needs a ``parallel_env`` and a ``max_cycles``
truncation, and a card game's agents do not act in a fixed cycle (a trick's winner leads the
next), so the environments are AEC only (``is_parallelizable`` is False) and never truncate.
"""

from __future__ import annotations

import warnings
from functools import partial

from pettingzoo.test import api_test, render_test, seed_test

from arena.envs.pettingzoo import env, raw_env
from arena.games.params import ParamValue
from tests.envs.configs import each_seat_config

API_CYCLES = 1000
"""Cycles of the API check's random play (a cycle is one move of each agent)."""
SEED_CYCLES = 500


@each_seat_config
def test_api(game_id: str, seats: int, params: dict[str, ParamValue]) -> None:
    """``pettingzoo.test.api_test`` passes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(game_id, seats, **params), num_cycles=API_CYCLES)


@each_seat_config
def test_seed(game_id: str, seats: int, params: dict[str, ParamValue]) -> None:
    """``pettingzoo.test.seed_test`` passes: the same seed plays the same episode."""
    seed_test(partial(env, game_id, seats, **params), num_cycles=SEED_CYCLES)


@each_seat_config
def test_render(game_id: str, seats: int, params: dict[str, ParamValue]) -> None:
    """``pettingzoo.test.render_test`` passes for ``ansi`` and ``human``."""
    render_test(partial(env, game_id, seats, **params))


def test_the_environments_are_turn_based_only() -> None:
    """No parallel API is claimed, so PettingZoo's parallel checks do not apply."""
    assert raw_env("briscola").metadata["is_parallelizable"] is False
