"""``check_game`` passes the example plugin game, and names what is wrong with a broken one.

It also passes every registered configuration. The broken games are the example's High Card
with one fault each: an observation that shows the other seat's hand, and a deal that ignores
the seed.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from cardarena_example_games.high_card import HighCardGame, HighCardState

from arena.games import Game, Observation, UnknownGameError, load_game, registry
from arena.games.api import DealInput
from arena.games.testing import check_game

from .harness import CONFIG_IDS, CONFIGS, Config, make_game

EXAMPLE_ID = "high-card"
INSTALL_HINT = "the example plugin is not installed: pip install -e tests/plugin_example"
QUICK_PLAYOUTS = 3
"""Playouts per configuration in the sweep (the other conformance tests go deeper)."""


class LeakyState(HighCardState):
    """High Card whose observation shows the other seat's hand in ``points``."""

    def observation(self, seat: int) -> Observation:
        """The seat's observation with the other seat's hand appended to ``points``."""
        observation = super().observation(seat)
        other = tuple(self._hands[1 - seat])
        return replace(observation, points=(*observation.points, *other))


class LeakyGame(HighCardGame):
    """High Card with a leaking observation."""

    def new_initial_state(self, seed: int, deal: DealInput = None) -> LeakyState:
        """A new match."""
        return LeakyState(self, seed, deal)


class UnseededState(HighCardState):
    """High Card that shuffles with an unseeded generator instead of the state's own."""

    def _next_deal(self) -> tuple[int, ...]:
        """A fresh random order, whatever the seed."""
        order = list(super()._next_deal())
        random.shuffle(order)
        return tuple(order)


class UnseededGame(HighCardGame):
    """High Card whose deals do not follow the seed."""

    def new_initial_state(self, seed: int, deal: DealInput = None) -> UnseededState:
        """A new match."""
        return UnseededState(self, seed, deal)


def broken(kind: type[Game]) -> Game:
    """A broken High Card with default parameters."""
    game = load_game(EXAMPLE_ID)
    return kind(game.spec, game.num_players, game.params)


def test_the_example_game_passes_every_configuration() -> None:
    """Both registered configurations of High Card pass, given by id or as a game."""
    assert EXAMPLE_ID in registry.game_ids(), INSTALL_HINT
    check_game(EXAMPLE_ID, playouts=10)
    check_game(load_game(EXAMPLE_ID, 2, {"hand_size": 10, "hands": 3}), playouts=5, seed=100)


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_every_configuration_passes(config: Config) -> None:
    """``check_game`` passes every registered configuration on a few playouts."""
    check_game(make_game(config), playouts=QUICK_PLAYOUTS, seed=1)


def test_a_leaking_observation_fails_naming_the_leak() -> None:
    """Showing the other seat's hand fails the resampling check, naming the field."""
    leak = r"seat \d's observation depends on cards it has not seen \(fields \['points'\]\)"
    with pytest.raises(AssertionError, match=leak):
        check_game(broken(LeakyGame), playouts=3)


def test_an_unseeded_deal_fails_the_determinism_check() -> None:
    """Deals that ignore the seed make replays from the seed differ."""
    with pytest.raises(AssertionError, match="two replays of the first 0 actions differ"):
        check_game(broken(UnseededGame), playouts=3)


def test_bad_arguments_are_refused() -> None:
    """An unknown game id and a playout count below one raise errors naming them."""
    with pytest.raises(UnknownGameError, match="no-such-game"):
        check_game("no-such-game")
    with pytest.raises(ValueError, match="playouts must be at least 1"):
        check_game(EXAMPLE_ID, playouts=0)
