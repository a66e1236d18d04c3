"""Hidden information: a seat's observation depends only on what that seat has seen.

For states of random playouts, every card a seat has not seen is permuted among its places in
the current deal and the history is replayed; the seat's observation must not change.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import Observation, State
from arena.games.testing import check_resample, pick_stops, states_at

from .harness import (
    CONFIG_IDS,
    CONFIGS,
    HIDDEN_CONFIG_IDS,
    HIDDEN_CONFIGS,
    Config,
    config_id,
    make_game,
    playout,
    profile,
)

STOP_CAP = 150
"""States are taken within the first this many decisions (replays stay short)."""
MIN_CHECKED = 30
"""Checked resamples per configuration that also changed another seat's view."""
MAX_SWEEP_SEEDS = 40

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
FRACTIONS = st.floats(min_value=0.0, max_value=1.0, exclude_max=True)
each_config = pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
each_hidden_config = pytest.mark.parametrize("config", HIDDEN_CONFIGS, ids=HIDDEN_CONFIG_IDS)


def resample_every_seat(config: Config, state: State, rng: random.Random,
                        outcomes: Counter[str]) -> None:
    """Resample each seat's hidden cards once, counting the outcomes."""
    fixed = profile(config_id(config)).out_of_play
    for seat in range(state.game.num_players):
        outcomes[check_resample(state, seat, rng, fixed)] += 1


@each_config
@given(seed=SEEDS, fraction=FRACTIONS)
def test_observation_ignores_unseen_cards(config: Config, seed: int, fraction: float) -> None:
    """At a random point of a random playout, no seat's view depends on cards it has not seen."""
    game = make_game(config)
    actions = playout(game, seed).history()
    stop = int(fraction * min(len(actions), STOP_CAP))
    for state in states_at(game, seed, actions, [stop]):
        resample_every_seat(config, state, random.Random(seed), Counter())


@each_hidden_config
def test_resampling_check_is_not_vacuous(config: Config) -> None:
    """From the first decision on, enough resamples change another seat's view, not this one's."""
    game = make_game(config)
    outcomes: Counter[str] = Counter()
    for seed in range(MAX_SWEEP_SEEDS):
        rng = random.Random(seed)
        actions = playout(game, seed).history()
        for state in states_at(game, seed, actions, pick_stops(rng, len(actions), 2, STOP_CAP)):
            resample_every_seat(config, state, rng, outcomes)
        if outcomes["checked"] >= MIN_CHECKED:
            return
    pytest.fail(f"too few effective resamples in {MAX_SWEEP_SEEDS} playouts: {dict(outcomes)}")


@each_hidden_config
def test_resampling_check_catches_a_leak(config: Config) -> None:
    """An observation that leaks the next seat's hand (outside any card field) fails the check."""
    game = make_game(config)
    fixed = profile(config_id(config)).out_of_play

    def leaky(state: State, seat: int) -> Observation:
        """The seat's observation with the next seat's hand appended to ``points``."""
        observation = state.observation(seat)
        shown = state.observation((seat + 1) % game.num_players).hand
        return replace(observation, points=(*observation.points, *shown))

    rng = random.Random(0)
    for seed in range(MAX_SWEEP_SEEDS):
        actions = playout(game, seed).history()
        for state in states_at(game, seed, actions, pick_stops(rng, len(actions), 2, STOP_CAP)):
            for seat in range(game.num_players):
                try:
                    check_resample(state, seat, rng, fixed, observe=leaky)
                except AssertionError as error:
                    assert "has not seen" in str(error)
                    return
    pytest.fail("the resampling check never noticed a leaking observation")
