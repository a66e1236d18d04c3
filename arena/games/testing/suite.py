"""``check_game``: every game-level check over seeded random playouts of one game."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from arena.games.api import Game, State
from arena.games.params import ParamValue, UnknownGameError
from arena.games.registry import all_configurations, load_game
from arena.games.testing.checks import (
    check_clone,
    check_final_returns,
    check_hand_accounting,
    check_illegal_rejected,
    check_legal_set,
    check_no_foreign_cards,
    check_observation,
    check_replay,
    check_resample,
    check_seeds_deal_differently,
    out_of_play,
    serialized,
)
from arena.games.testing.playouts import pick_stops, playout, replay, states_at, where

STOPS_PER_PLAYOUT = 4
"""States checked in depth per playout, besides its end."""
STOP_CAP = 150
"""Clones and resamples are taken within the first this many decisions (replays stay short)."""


def configurations(game_id: str) -> list[Game]:
    """The games of every registered configuration of ``game_id`` (the generic tests' list)."""
    chosen: list[tuple[int, dict[str, ParamValue]]] = [
        (seats, params) for found, seats, params in all_configurations() if found == game_id]
    if not chosen:
        load_game(game_id)  # raises UnknownGameError naming the valid ids
        raise UnknownGameError(f"game {game_id!r} has no configuration to check")
    return [load_game(game_id, seats, params) for seats, params in chosen]


def check_game(game: Game | str, playouts: int = 20, seed: int = 0) -> None:
    """Check a game (or every configuration of a game id); raise AssertionError on a problem.

    Plays ``playouts`` seeded random matches (seeds ``seed``, ``seed + 1``, ...) and checks
    legal sets, rejection of illegal actions, card accounting, zero-sum returns, observations
    and their privacy, hidden-information resampling, clones and determinism.
    """
    if playouts < 1:
        raise ValueError(f"playouts must be at least 1, not {playouts}")
    games = configurations(game) if isinstance(game, str) else [game]
    for one in games:
        check_configuration(one, playouts, seed)


def check_configuration(game: Game, playouts: int, seed: int) -> None:
    """Every game-level check on ``playouts`` seeded random matches of one configuration."""
    seeds = range(seed, seed + playouts)
    check_seeds_deal_differently(game, seeds)
    finished = []
    for one in seeds:
        state = playout(game, one, hook=check_legal_set)
        check_hand_accounting(game, state.full_events())
        check_final_returns(state)
        finished.append(state)
    fixed = out_of_play(game, finished)
    outcomes: Counter[str] = Counter()
    for state in finished:
        rng = random.Random(state.seed())
        actions = state.history()
        stops = pick_stops(rng, len(actions), STOPS_PER_PLAYOUT, STOP_CAP)
        check_replay(state, stops)
        for stop, reached in zip(sorted(set(stops)), states_at(game, state.seed(), actions, stops),
                                 strict=True):
            check_position(reached, rng, fixed, outcomes)
            clone_from = replay(game, state.seed(), actions[:stop])
            assert clone_from is not None, f"{where(state)}: replaying {stop} actions failed"
            check_clone(clone_from, rng)
        check_position(state, rng, fixed, outcomes)
    resampled = outcomes["checked"] + outcomes["private"]
    assert game.perfect_information or resampled, (
        f"{game!r}: no resample of unseen cards could be replayed in {playouts} playouts "
        f"({dict(outcomes)}); if the game hides nothing, set Game.perfect_information = True")


def check_position(state: State[Any], rng: random.Random, fixed: frozenset[int],
                   outcomes: Counter[str]) -> None:
    """Legal set, illegal actions, observations, privacy and resampling at one state."""
    check_legal_set(state)
    check_illegal_rejected(state, rng)
    for seat in range(state.game.num_players):
        observation = state.observation(seat)
        check_observation(state, seat, observation)
        serialized(observation)
    check_no_foreign_cards(state)
    if state.game.perfect_information or state.is_terminal():
        return
    for seat in range(state.game.num_players):
        outcomes[check_resample(state, seat, rng, fixed)] += 1
