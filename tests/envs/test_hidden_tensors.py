"""Hidden information in the vectors: resampling what seat i has not seen (the engine's
consistent resampling of the deal, then a replay of the same actions) leaves seat i's
observation vector and action mask unchanged, byte for byte."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, cast

import pytest

from arena.bridges.tensors import Layout, encode, layout
from arena.envs.pettingzoo import raw_env
from arena.games import Event, Observation, State
from arena.games.testing import check_resample, out_of_play, pick_stops, playout, states_at
from arena.games.testing.checks import Observe
from tests.conformance.harness import HIDDEN_CONFIG_IDS, HIDDEN_CONFIGS, Config, make_game

SEEDS = range(3)
STOPS = 4
STOP_CAP = 150
"""States are taken within the first this many decisions (replays stay short)."""


@dataclass(frozen=True)
class VectorBytes:
    """A seat's vector and action mask as bytes, with its events for the resampling check."""

    events: tuple[Event, ...]
    data: bytes

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form, for the check's canonical comparison and messages."""
        return {"data": self.data.hex()}


def observed_bytes(shape: Layout, mask_size: int, leak: bool = False) -> Observe:
    """An ``observe`` for ``check_resample`` comparing the environment's bytes; ``leak`` adds
    the next seat's hand (to show that the check catches a leak)."""
    def observe(state: State, seat: int) -> Observation:
        observation = state.observation(seat)
        data = encode(observation, shape).tobytes()
        mask = bytearray(mask_size)
        for action in observation.legal_actions:
            mask[action] = 1
        if leak:
            data += bytes(sorted(state.observation((seat + 1) % state.game.num_players).hand))
        return cast(Observation, VectorBytes(observation.events, data + bytes(mask)))
    return observe


def resample_outcomes(config: Config, leak: bool = False) -> Counter[str]:
    """The outcomes of resampling checks at a few states of a few seeded matches."""
    game = make_game(config)
    environment = raw_env(config[0], config[1], **config[2])
    observe = observed_bytes(layout(game), environment.num_actions, leak)
    matches = [playout(game, seed) for seed in SEEDS]
    fixed = out_of_play(game, matches)
    outcomes: Counter[str] = Counter()
    for seed, match in zip(SEEDS, matches, strict=True):
        rng = random.Random(seed)
        actions = match.history()
        for state in states_at(game, seed, actions, pick_stops(rng, len(actions), STOPS,
                                                               STOP_CAP)):
            for seat in range(game.num_players):
                outcomes[check_resample(state, seat, rng, fixed, observe=observe)] += 1
    return outcomes


@pytest.mark.parametrize("config", HIDDEN_CONFIGS, ids=HIDDEN_CONFIG_IDS)
def test_unseen_cards_leave_the_vector_unchanged(config: Config) -> None:
    """No seat's vector or mask depends on cards it has not seen; some resampling changed the
    deal (the check was not empty)."""
    outcomes = resample_outcomes(config)
    assert outcomes["checked"] + outcomes["private"] > 0, dict(outcomes)


def test_the_check_catches_a_leaking_vector() -> None:
    """A vector that carried another seat's hand would fail the same check."""
    with pytest.raises(AssertionError, match="has not seen"):
        resample_outcomes(("briscola", 4, {}), leak=True)
