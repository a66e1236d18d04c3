"""Determinism: same game, parameters, seed and actions give the same match, in any process."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from arena.games import State
from arena.games.testing import digest, pick_stops, replay, snapshot, states_at

from . import harness
from .harness import (
    CONFIG_IDS,
    CONFIGS,
    Config,
    config_id,
    make_game,
    playout,
    records_of,
)

SEEDS = range(4)
STOPS_PER_PLAYOUT = 5
each_config = pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)


@each_config
def test_replay_gives_identical_states(config: Config) -> None:
    """Replaying a playout's actions from its seed gives identical states along the way."""
    game = make_game(config)
    for seed in SEEDS:
        actions = playout(game, seed).history()
        stops = [*pick_stops(random.Random(seed), len(actions), STOPS_PER_PLAYOUT), len(actions)]
        first = [snapshot(state) for state in states_at(game, seed, actions, stops)]
        second = [snapshot(state) for state in states_at(game, seed, actions, stops)]
        for stop, one, two in zip(sorted(set(stops)), first, second, strict=True):
            assert one == two, f"seed {seed}: replays differ after {stop} actions"


@each_config
def test_injected_deals_reproduce_the_match(config: Config) -> None:
    """Injecting a match's own deals gives the same match as its seed."""
    game = make_game(config)
    for seed in SEEDS:
        original = playout(game, seed)
        injected = replay(game, seed, original.history(), deal=original.deals())
        assert injected is not None and snapshot(injected) == snapshot(original)


def recorded_matches(config: Config) -> list[State]:
    """The seeded playouts whose replays are compared across processes."""
    game = make_game(config)
    return [playout(game, seed) for seed in SEEDS]


@pytest.fixture(scope="module")
def fresh_digests() -> dict[str, list[str]]:
    """Digests of every configuration's recorded matches, replayed in one fresh interpreter."""
    records = records_of([state for config in CONFIGS for state in recorded_matches(config)])
    result = subprocess.run(
        [sys.executable, harness.__file__], input=json.dumps(records),
        capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    assert result.returncode == 0, result.stderr
    digests = iter(result.stdout.split())
    return {key: [next(digests) for _ in SEEDS] for key in CONFIG_IDS}


@each_config
def test_replay_in_a_fresh_process_gives_the_same_digest(
        config: Config, fresh_digests: dict[str, list[str]]) -> None:
    """A fresh interpreter (with another hash seed) replays to the same event log and returns."""
    expected = [digest(state) for state in recorded_matches(config)]
    assert fresh_digests[config_id(config)] == expected


@each_config
def test_different_seeds_deal_differently(config: Config) -> None:
    """Twenty seeds give twenty different first deals."""
    game = make_game(config)
    deals = {game.new_initial_state(seed).deals()[0] for seed in range(20)}
    assert len(deals) == 20
