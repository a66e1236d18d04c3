"""Observations of every configuration are well formed and show no other seat's hand."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import Observation, State
from arena.games.testing import (
    check_no_foreign_cards,
    check_observation,
    pick_stops,
    serialized,
    states_at,
)

from .harness import CONFIG_IDS, CONFIGS, Config, make_game, playout

STOPS_PER_PLAYOUT = 4

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
each_config = pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)


@each_config
@given(seed=SEEDS)
def test_observations_are_well_formed_and_private(config: Config, seed: int) -> None:
    """Every seat's observation is well formed and hides the other hands, start to end.

    Serializing is slow, so one seat's ``to_dict`` (by the seed) goes to JSON, at the end.
    """
    game = make_game(config)
    actions = playout(game, seed).history()
    stops = [*pick_stops(random.Random(seed), len(actions), STOPS_PER_PLAYOUT), len(actions)]
    for state in states_at(game, seed, actions, stops):
        for seat in range(game.num_players):
            check_observation(state, seat, state.observation(seat))
        check_no_foreign_cards(state)
    serialized(state.observation(seed % game.num_players))


@each_config
def test_privacy_check_catches_a_shown_hand(config: Config) -> None:
    """The privacy check fails for an observation that shows the next seat's hand on the table."""
    game = make_game(config)
    n = game.num_players

    def leaky(state: State, seat: int) -> Observation:
        """The seat's observation with the next seat's hand laid on the table."""
        observation = state.observation(seat)
        shown = state.observation((seat + 1) % n).hand
        return replace(observation, table=observation.table + shown)

    with pytest.raises(AssertionError, match="hand cards"):
        check_no_foreign_cards(playout(game, 0, stop=0), observe=leaky)
