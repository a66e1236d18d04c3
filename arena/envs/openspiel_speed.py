"""A match through the OpenSpiel game, for the bridges' speed measure (``arena.envs.speed``
has the engine's and the PettingZoo environment's).

The loop plays seeded matches with uniformly random legal actions and reads the acting
seat's observation tensor at every decision, as the other two loops read theirs: the seed's
chance actions first (not decisions), then ``observation_tensor``, ``legal_actions`` and
``apply_action``.
"""

from __future__ import annotations

import random
from typing import Any

import pyspiel  # type: ignore[import-not-found]

from arena.bridges.openspiel import seed_actions, short_name
from arena.envs.speed import Loop, engine_loop, env_loop
from arena.games.params import ParamValue


def openspiel_loop(game_id: str, players: int | None, params: dict[str, ParamValue]) -> Loop:
    """The OpenSpiel game: the seed's chance actions, then tensor, legal actions, action."""
    spec_params: dict[str, Any] = dict(params)
    if players is not None:
        spec_params["players"] = players
    game = pyspiel.load_game(short_name(game_id), spec_params)

    def play(seed: int) -> int:
        """One match; its decisions."""
        rng = random.Random(seed)
        state = game.new_initial_state()
        for action in seed_actions(seed):
            state.apply_action(action)
        decisions = 0
        while not state.is_terminal():
            state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
        return decisions
    return play


def bridge_loops(game_id: str, players: int) -> list[Loop]:
    """The loops ``arena bench engine --bridges`` measures for one configuration, at default
    parameters: the engine alone, the PettingZoo environment, the OpenSpiel game."""
    return [loop(game_id, players, {}) for loop in (engine_loop, env_loop, openspiel_loop)]
