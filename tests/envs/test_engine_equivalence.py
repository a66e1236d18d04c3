"""The environment plays the engine's match: same seed, same actions, same returns, and each
seat's observation vector is the encoding of the engine's ``state.observation(seat)``."""

from __future__ import annotations

import random

import numpy as np

from arena.bridges.tensors import encode, layout
from arena.envs.pettingzoo import env, raw_env
from arena.games import load_game
from arena.games.params import ParamValue
from tests.envs.configs import each_seat_config

SEEDS = (0, 1)
COMPARED_STEPS = 120
"""Every seat's vector is compared at each of the first this many steps (then the acting
seat's only), so that long matches stay quick."""


@each_seat_config
def test_same_seed_same_actions_same_match(game_id: str, seats: int,
                                          params: dict[str, ParamValue]) -> None:
    """Driving the environment and the engine side by side keeps them equal to the end."""
    for seed in SEEDS:
        rng = random.Random(seed)
        aec = env(game_id, seats, **params)
        aec.reset(seed=seed)
        state = load_game(game_id, seats, params).new_initial_state(seed)
        shape = layout(state.game)
        totals = dict.fromkeys(aec.possible_agents, 0.0)
        steps = 0
        for agent in aec.agent_iter():
            observed, _reward, terminated, truncated, _ = aec.last()
            assert not truncated
            assert terminated == state.is_terminal()
            if terminated:
                aec.step(None)
                continue
            seat = state.current_player()
            assert agent == f"player_{seat}"
            legal = state.legal_actions()
            assert np.flatnonzero(observed["action_mask"]).tolist() == legal
            compared = range(seats) if steps < COMPARED_STEPS else (seat,)
            for other in compared:
                vector = aec.observe(f"player_{other}")["observation"]
                assert np.array_equal(vector, encode(state.observation(other), shape))
            action = rng.choice(legal)
            aec.step(action)
            state.apply_action(action)
            steps += 1
            for name, value in aec.rewards.items():
                totals[name] += value
        assert state.is_terminal()
        assert [totals[f"player_{seat}"] for seat in range(seats)] == state.returns()


def test_the_vector_holds_the_seats_own_hand_and_seat() -> None:
    """The ``hand`` and ``seat`` segments read back as the observation's hand and seat."""
    game_env = raw_env("briscola-chiamata", 5)
    game_env.reset(seed=7)
    shape = game_env.layout
    start = shape.offsets()
    sizes = {segment.name: segment.size for segment in shape.segments}
    for seat in range(5):
        observation = game_env.state_now.observation(seat)
        vector = game_env.observe(f"player_{seat}")["observation"]
        hand = vector[start["hand"]:start["hand"] + sizes["hand"]]
        assert np.flatnonzero(hand).tolist() == sorted(observation.hand)
        assert np.flatnonzero(vector[start["seat"]:start["seat"] + 5]).tolist() == [seat]
    assert vector.shape == (shape.size,)
