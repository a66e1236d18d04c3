"""Random playouts of every configuration: termination, legal sets, illegal actions, card
accounting, zero-sum returns, and independent clones."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import EventKind
from arena.games.testing import (
    check_clone,
    check_final_returns,
    check_hand_accounting,
    check_illegal_rejected,
    check_legal_set,
    pick_stops,
    replay,
    states_at,
)
from arena.games.testing.checks import WON_KINDS

from .harness import (
    CONFIG_IDS,
    CONFIGS,
    Config,
    make_game,
    playout,
    seeds_within,
)

SWEEP_DECISIONS = 6000
"""Decisions per configuration in the broad sweep (between 20 and 150 playouts)."""
STOPS_PER_PLAYOUT = 4
STOP_CAP = 150
"""Clones are taken within the first this many decisions."""

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
FRACTIONS = st.floats(min_value=0.0, max_value=1.0, exclude_max=True)
each_config = pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)


@each_config
def test_many_playouts_end_and_account_for_every_card(config: Config) -> None:
    """Every playout ends with zero-sum returns; every hand accounts for the whole deck."""
    game = make_game(config)
    for seed in seeds_within(config, SWEEP_DECISIONS, 20, 150):
        state = playout(game, seed, hook=check_legal_set)
        check_hand_accounting(game, state.full_events())
        check_final_returns(state)


@each_config
@given(seed=SEEDS)
def test_illegal_actions_are_rejected_without_effect(config: Config, seed: int) -> None:
    """Illegal actions raise IllegalActionError naming the legal set, and change nothing."""
    game = make_game(config)
    rng = random.Random(seed)
    actions = playout(game, seed).history()
    stops = [*pick_stops(rng, len(actions), STOPS_PER_PLAYOUT), len(actions)]
    for state in states_at(game, seed, actions, stops):
        check_legal_set(state)
        check_illegal_rejected(state, rng)
        check_hand_accounting(game, state.full_events())


@each_config
@given(seed=SEEDS, fraction=FRACTIONS)
def test_clone_is_an_independent_copy(config: Config, seed: int, fraction: float) -> None:
    """A clone equals the original, does not affect it, and plays on identically."""
    game = make_game(config)
    actions = playout(game, seed).history()
    state = replay(game, seed, actions[:int(fraction * min(len(actions), STOP_CAP))])
    assert state is not None
    check_clone(state, random.Random(seed))


@each_config
def test_accounting_check_catches_a_lost_trick(config: Config) -> None:
    """The card accounting fails for an event log with its first won trick removed."""
    game = make_game(config)
    for seed in range(20):
        events = list(playout(game, seed).full_events())
        won = [i for i, event in enumerate(events) if event.kind in WON_KINDS and event.cards]
        if won:
            del events[won[0]]
            with pytest.raises(AssertionError, match="missing"):
                check_hand_accounting(game, events)
            return
    # No card is ever won (Vecchia): drop a card from the end of a hand instead.
    events = list(playout(game, 0).full_events())
    end = next(i for i, event in enumerate(events)
               if event.kind == EventKind.HAND_END and event.cards)
    events[end] = replace(events[end], cards=events[end].cards[1:])
    with pytest.raises(AssertionError, match="missing"):
        check_hand_accounting(game, events)
