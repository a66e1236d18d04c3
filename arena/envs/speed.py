"""Decisions per second through the PettingZoo environment against the engine alone, measured
in the same run (alternate slices, medians), for a benchmark command to print.

Both loops play seeded matches with uniformly random legal actions and read the acting seat's
observation at every decision: the engine loop through ``state.observation(seat)``, the
environment loop through ``last()`` (the vector and the mask) and ``step``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.envs.pettingzoo import raw_env
from arena.games import load_game
from arena.games.params import ParamValue

Loop = Callable[[int], int]
"""Plays the match of a seed and returns its number of decisions."""


@dataclass(frozen=True)
class BridgeSpeed:
    """Median decisions per second of the engine alone and through the environment."""

    game: str
    players: int
    engine_per_s: float
    env_per_s: float

    @property
    def overhead(self) -> float:
        """How many times longer a decision takes through the environment."""
        return self.engine_per_s / self.env_per_s


def engine_loop(game_id: str, players: int | None, params: dict[str, ParamValue]) -> Loop:
    """The engine alone: observe the acting seat, pick a legal action, apply it."""
    game = load_game(game_id, players, params)

    def play(seed: int) -> int:
        """One match; its decisions."""
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        decisions = 0
        while not state.is_terminal():
            state.observation(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
        return decisions
    return play


def env_loop(game_id: str, players: int | None, params: dict[str, ParamValue]) -> Loop:
    """The environment: ``last()``, a legal action from the mask, ``step``."""
    aec: Any = raw_env(game_id, players, render_mode=None, **params)

    def play(seed: int) -> int:
        """One episode; its decisions."""
        rng = random.Random(seed)
        aec.reset(seed=seed)
        decisions = 0
        for _ in aec.agent_iter():
            observation, _, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            aec.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            decisions += 1
        return decisions
    return play


def rate(play: Loop, seconds: float, first_seed: int) -> float:
    """Decisions per second of whole matches played for about ``seconds``."""
    decisions, seed = 0, first_seed
    start = time.perf_counter()
    while True:
        decisions += play(seed)
        seed += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions / elapsed


def measure(game_id: str, players: int | None = None, params: dict[str, ParamValue] | None = None,
            seconds: float = 1.0, repeats: int = 3) -> BridgeSpeed:
    """Engine and environment rates in alternate slices of ``seconds``, medians of
    ``repeats``; both play the same seeds."""
    values = dict(params or {})
    engine, environment = engine_loop(game_id, players, values), env_loop(game_id, players, values)
    engine_rates, env_rates = [], []
    for repeat in range(repeats):
        engine_rates.append(rate(engine, seconds, repeat * 1000))
        env_rates.append(rate(environment, seconds, repeat * 1000))
    seats = load_game(game_id, players, values).num_players
    return BridgeSpeed(game_id, seats, statistics.median(engine_rates),
                       statistics.median(env_rates))

