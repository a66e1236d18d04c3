"""Hidden information on the wire: a seat's serialized DecisionRequest depends only on what the
seat has seen.

The conformance resampling check runs with the compared thing being the bytes the arena
sends: the seat's DecisionRequest as the RequestEncoder serializes it (observation, and legal
actions with their meanings for the seat to act). Resampled deals must give the same bytes.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import ActionMeaning, Event, Game, Observation, State
from arena.games.testing import check_resample, pick_stops, states_at
from arena.protocol import RequestEncoder
from tests.conformance.harness import (
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
LEAK_SEEDS = 20

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
FRACTIONS = st.floats(min_value=0.0, max_value=1.0, exclude_max=True)
each_hidden_config = pytest.mark.parametrize("config", HIDDEN_CONFIGS, ids=HIDDEN_CONFIG_IDS)


@dataclass(frozen=True)
class SentBytes:
    """What the arena sends a seat, as bytes, with the seat's events for the resampling check."""

    events: tuple[Event, ...]
    data: bytes

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form, for the check's canonical comparison and messages."""
        return {"data": self.data.hex()}


def sent_bytes(state: State, seat: int) -> SentBytes:
    """The seat's serialized DecisionRequest (legal actions are empty unless it is to act)."""
    data = RequestEncoder(state, seat).decision_bytes(1, 1000, 60_000)
    return SentBytes(state.observation(seat).events, data)


def observe_sent(state: State, seat: int) -> Observation:
    """``sent_bytes`` in the place of an observation (the check only compares and reads events)."""
    return cast(Observation, sent_bytes(state, seat))


@each_hidden_config
@given(seed=SEEDS, fraction=FRACTIONS)
def test_sent_bytes_ignore_unseen_cards(config: Config, seed: int, fraction: float) -> None:
    """At a random point of a random playout, no seat's bytes depend on cards it has not seen."""
    game = make_game(config)
    fixed = profile(config_id(config)).out_of_play
    actions = playout(game, seed).history()
    stop = int(fraction * min(len(actions), STOP_CAP))
    rng = random.Random(seed)
    for state in states_at(game, seed, actions, [stop]):
        for seat in range(game.num_players):
            check_resample(state, seat, rng, fixed, observe=observe_sent)


class LeakyLabels:
    """A state whose legal actions' labels leak the next seat's hand (for the check's check)."""

    def __init__(self, state: State) -> None:
        """Wrap ``state``."""
        self.state = state
        self.game: Game = state.game

    def observation(self, seat: int) -> Observation:
        """The wrapped state's observation."""
        return self.state.observation(seat)

    def action_meaning(self, action: int) -> ActionMeaning:
        """The wrapped meaning, its label followed by the next seat's hand."""
        meaning = self.state.action_meaning(action)
        seat = (self.state.current_player() + 1) % self.game.num_players
        return replace(meaning, label=f"{meaning.label} {self.state.observation(seat).hand}")


def observe_leaky(state: State, seat: int) -> Observation:
    """Like ``observe_sent``, through ``LeakyLabels``."""
    data = RequestEncoder(cast(State, LeakyLabels(state)), seat).decision_bytes(1, 1000, 60_000)
    return cast(Observation, SentBytes(state.observation(seat).events, data))


@each_hidden_config
def test_the_check_sees_legal_actions(config: Config) -> None:
    """A leak in the legal actions' meanings alone (not the observation) fails the check."""
    game = make_game(config)
    fixed = profile(config_id(config)).out_of_play
    outcomes: Counter[str] = Counter()
    for seed in range(LEAK_SEEDS):
        rng = random.Random(seed)
        actions = playout(game, seed).history()
        for state in states_at(game, seed, actions, pick_stops(rng, len(actions), 3, STOP_CAP)):
            if state.is_terminal():
                continue
            try:
                outcomes[check_resample(state, state.current_player(), rng, fixed,
                                        observe=observe_leaky)] += 1
            except AssertionError as error:
                assert "has not seen" in str(error)
                return
    pytest.fail(f"a leak in the legal actions went unnoticed: {dict(outcomes)}")
