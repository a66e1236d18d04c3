"""OpenSpiel's own checks over every game id and seat count, and the registration itself."""

from __future__ import annotations

import pyspiel
import pytest

from arena.bridges.openspiel import GAME_NAMES, SEED_BYTES, seed_actions, short_name
from arena.games.params import ParamValue
from arena.games.registry import game_ids, get_spec
from tests.envs.configs import each_seat_config

NUM_SIMS = 2
LONG_MATCHES = frozenset({"misere", "madrasso", "scopone", "presidente", "tressette-non-prendere"})
"""Games whose default match runs to hundreds of decisions: one simulation each."""


@each_seat_config
def test_random_sim_test(game_id: str, seats: int, params: dict[str, ParamValue]) -> None:
    """``pyspiel.random_sim_test`` passes, serializing and deserializing every state."""
    game = pyspiel.load_game(short_name(game_id), {"players": seats, **params})
    assert game.num_players() == seats
    sims = 1 if game_id in LONG_MATCHES else NUM_SIMS
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_every_game_id_is_registered_with_its_parameters() -> None:
    """Each game id is a registered Python game whose parameters are ``players`` and the
    game's own, at the game's defaults."""
    registered = {game_type.short_name: game_type for game_type in pyspiel.registered_games()}
    assert [short_name(game_id) for game_id in game_ids()] == GAME_NAMES
    for game_id in game_ids():
        spec = get_spec(game_id)
        game_type = registered[short_name(game_id)]
        assert game_type.min_num_players == min(spec.seats)
        assert game_type.max_num_players == max(spec.seats)
        parameters = pyspiel.load_game(short_name(game_id)).get_parameters()
        assert parameters == {"players": spec.default_seats, **spec.defaults()}


def test_the_chance_nodes_draw_the_engine_seed() -> None:
    """After the seed's bytes the state is the engine's match of that seed."""
    game = pyspiel.load_game("cardarena_briscola_chiamata")
    state = game.new_initial_state()
    seed = 0x0123456789ABCDEF
    for action in seed_actions(seed):
        assert state.is_chance_node()
        assert len(state.chance_outcomes()) == 256
        state.apply_action(action)
    assert len(state.history()) == SEED_BYTES
    assert state.engine is not None and state.engine.seed() == seed


def test_a_bad_parameter_is_one_clear_error() -> None:
    """A seat count the game does not allow names the valid ones."""
    with pytest.raises(Exception, match="valid seat counts: 2, 3, 4"):
        pyspiel.load_game("cardarena_briscola", {"players": 7})
