"""One seed and one list of actions through three doors: the OpenSpiel game, the PettingZoo
environment and the engine give the same returns and the same per-seat observation vectors."""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from arena.bridges.openspiel import seed_actions, short_name
from arena.bridges.tensors import encode, layout
from arena.envs.pettingzoo import env
from arena.games import load_game
from arena.games.params import ParamValue
from tests.envs.configs import each_seat_config

SEED = 2024
COMPARED_STEPS = 60
"""Every seat's vectors are compared at each of the first this many decisions, then the
acting seat's only, so that long matches stay quick."""


@each_seat_config
def test_same_seed_same_actions_same_match(game_id: str, seats: int,
                                          params: dict[str, ParamValue]) -> None:
    """Driven side by side, the three stay equal to the end of the match."""
    rng = random.Random(SEED)
    spiel = pyspiel.load_game(short_name(game_id), {"players": seats, **params})
    state = spiel.new_initial_state()
    for action in seed_actions(SEED):
        state.apply_action(action)
    aec = env(game_id, seats, **params)
    aec.reset(seed=SEED)
    engine = load_game(game_id, seats, params).new_initial_state(SEED)
    shape = layout(engine.game)
    totals = dict.fromkeys(range(seats), 0.0)
    steps = 0
    for agent in aec.agent_iter():
        _, _, terminated, _, _ = aec.last()
        assert terminated == state.is_terminal() == engine.is_terminal()
        if terminated:
            aec.step(None)
            continue
        seat = engine.current_player()
        assert state.current_player() == seat and agent == f"player_{seat}"
        legal = engine.legal_actions()
        assert state.legal_actions() == legal
        for other in range(seats) if steps < COMPARED_STEPS else (seat,):
            expected = encode(engine.observation(other), shape)
            spiel_vector = np.asarray(state.observation_tensor(other), np.float32)
            assert np.array_equal(spiel_vector, expected)
            assert np.array_equal(aec.observe(f"player_{other}")["observation"], expected)
        action = rng.choice(legal)
        state.apply_action(action)
        aec.step(action)
        engine.apply_action(action)
        steps += 1
        for name, value in aec.rewards.items():
            totals[int(name.removeprefix("player_"))] += value
    assert engine.is_terminal() and state.is_terminal()
    assert state.returns() == engine.returns() == [totals[seat] for seat in range(seats)]
