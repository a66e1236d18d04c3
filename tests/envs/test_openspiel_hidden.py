"""Hidden information through OpenSpiel: resampling what seat i has not seen leaves seat i's
observation and information-state tensors and strings unchanged, both with the engine's
consistent resampling check and with the game's own ``resample_from_infostate``."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, cast

import pyspiel
import pytest

from arena.bridges.openspiel import seed_actions, short_name
from arena.bridges.openspiel_observer import CardObserver
from arena.bridges.tensors import HandEvents, Layout, layout
from arena.games import Event, Observation, State
from arena.games.params import ParamValue
from arena.games.testing import check_resample, out_of_play, pick_stops, playout, states_at
from arena.games.testing.checks import Observe
from tests.envs.configs import SEAT_CONFIG_IDS, SEAT_CONFIGS

SEED = 5
STOPS = 4
STOP_CAP = 150
"""States are taken within the first this many decisions (replays stay short)."""

HIDDEN = [(config, config_id) for config, config_id in zip(SEAT_CONFIGS, SEAT_CONFIG_IDS,
                                                            strict=True)
          if not pyspiel.load_game(short_name(config[0]), {"players": config[1], **config[2]})
          .engine.perfect_information]
each_hidden_config = pytest.mark.parametrize(("game_id", "seats", "params"),
                                             [config for config, _ in HIDDEN],
                                             ids=[config_id for _, config_id in HIDDEN])


@dataclass(frozen=True)
class EngineView:
    """An engine state as the OpenSpiel observer reads a state (the seed fully drawn)."""

    engine: State[Any]
    seed_bytes: int = 8

    def hand_events(self, seat: int, shape: Layout) -> HandEvents | None:
        """No memo: every tensor reads the whole hand."""
        return None


@dataclass(frozen=True)
class ObservedBytes:
    """What the OpenSpiel observers give a seat, as bytes, with its events for the check."""

    events: tuple[Event, ...]
    data: bytes

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form, for the check's comparison and messages."""
        return {"data": self.data.hex()}


def spiel_observe(observers: list[CardObserver]) -> Observe:
    """An ``observe`` for ``check_resample`` comparing the observers' tensors and strings."""
    def observe(state: State[Any], seat: int) -> Observation:
        data = b""
        for observer in observers:
            observer.set_from(EngineView(state), seat)
            data += observer.tensor.tobytes() + observer.string_from(EngineView(state),
                                                                     seat).encode()
        return cast(Observation, ObservedBytes(state.observation(seat).events, data))
    return observe


@each_hidden_config
def test_unseen_cards_leave_the_tensors_unchanged(game_id: str, seats: int,
                                                  params: dict[str, ParamValue]) -> None:
    """The engine's resampling check passes on what OpenSpiel's observers give a seat."""
    spiel = pyspiel.load_game(short_name(game_id), {"players": seats, **params})
    game = spiel.engine
    observers = [CardObserver(layout(game), perfect_recall=recall) for recall in (True, False)]
    match = playout(game, SEED)
    fixed = out_of_play(game, [match])
    rng = random.Random(SEED)
    actions = match.history()
    outcomes: Counter[str] = Counter()
    for state in states_at(game, SEED, actions, pick_stops(rng, len(actions), STOPS, STOP_CAP)):
        for seat in range(seats):
            outcomes[check_resample(state, seat, rng, fixed,
                                    observe=spiel_observe(observers))] += 1
    assert outcomes["checked"] + outcomes["private"] > 0, dict(outcomes)


@each_hidden_config
def test_resample_from_infostate_keeps_what_the_seat_knows(
        game_id: str, seats: int, params: dict[str, ParamValue]) -> None:
    """A resampled state gives the seat the same strings, tensors and legal actions; some
    resampled states differ for another seat (the resampling moved hidden cards)."""
    spiel = pyspiel.load_game(short_name(game_id), {"players": seats, **params})
    rng = random.Random(SEED)
    state = spiel.new_initial_state()
    for action in seed_actions(SEED):
        state.apply_action(action)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    moved = 0
    for stop in range(STOPS):
        for _ in range(stop and rng.randint(1, 8)):
            if not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            break
        for seat in range(seats):
            world = state.resample_from_infostate(seat, sampler)
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.information_state_tensor(seat) == state.information_state_tensor(seat)
            assert world.observation_string(seat) == state.observation_string(seat)
            assert world.observation_tensor(seat) == state.observation_tensor(seat)
            assert world.current_player() == state.current_player()
            assert world.legal_actions(seat) == state.legal_actions(seat)
            moved += any(world.information_state_string(other)
                         != state.information_state_string(other)
                         for other in range(seats) if other != seat)
    assert moved > 0


def test_the_check_catches_a_leaking_observer() -> None:
    """An observer that also showed the next seat's hand would fail the same check."""
    spiel = pyspiel.load_game("cardarena_briscola", {"players": 4})
    game = spiel.engine
    honest = spiel_observe([CardObserver(layout(game), perfect_recall=True)])

    def leaking(state: State[Any], seat: int) -> Observation:
        """The honest bytes and the next seat's hand."""
        seen = cast(ObservedBytes, honest(state, seat))
        hand = bytes(sorted(state.observation((seat + 1) % game.num_players).hand))
        return cast(Observation, ObservedBytes(seen.events, seen.data + hand))

    match = playout(game, SEED)
    rng = random.Random(SEED)
    state = next(iter(states_at(game, SEED, match.history(), [4])))
    with pytest.raises(AssertionError, match="has not seen"):
        for _ in range(20):
            check_resample(state, 0, rng, out_of_play(game, [match]), observe=leaking)
