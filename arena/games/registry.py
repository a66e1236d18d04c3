"""Game ids -> specs and factories, and ``load_game`` with parameter validation."""

from __future__ import annotations

import importlib

from arena.games.api import Game
from arena.games.params import GameSpec, Params, ParamValue, UnknownGameError

BUILTIN_MODULES = (
    "arena.games.misere",
    "arena.games.briscola",
    "arena.games.chiamata",
    "arena.games.madrasso",
    "arena.games.tressette",
    "arena.games.tressette_pozzo",
    "arena.games.tressette_non_prendere",
    "arena.games.tressette_toro",
    "arena.games.scopa",
    "arena.games.vecchia",
    "arena.games.presidente",
)
"""Each module exposes ``SPECS``, a tuple of ``GameSpec``."""

_SPECS: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> None:
    """Add a game id; a duplicate id is an error."""
    if spec.id in _SPECS:
        raise ValueError(f"game id {spec.id!r} is already registered")
    _SPECS[spec.id] = spec


def _load_builtins() -> None:
    """Import the built-in game modules once."""
    if _SPECS:
        return
    for module_name in BUILTIN_MODULES:
        module = importlib.import_module(module_name)
        for spec in module.SPECS:
            register(spec)


def game_ids() -> list[str]:
    """Every registered game id, in catalogue order."""
    _load_builtins()
    return list(_SPECS)


def get_spec(game_id: str) -> GameSpec:
    """The spec of a game id, or an error listing the valid ids."""
    _load_builtins()
    spec = _SPECS.get(game_id)
    if spec is None:
        raise UnknownGameError(
            f"unknown game {game_id!r}; valid games: {', '.join(_SPECS)}"
        )
    return spec


def load_game(game_id: str, players: int | None = None, params: Params | None = None) -> Game:
    """A game with a validated seat count and parameters."""
    spec = get_spec(game_id)
    seats, values = spec.resolve(players, params)
    return spec.factory(spec, seats, values)


def all_configurations() -> list[tuple[str, int, dict[str, ParamValue]]]:
    """Every (game id, seats, parameters) that generic tests cover.

    Each allowed seat count with default parameters, plus the spec's extra configurations.
    """
    configurations: list[tuple[str, int, dict[str, ParamValue]]] = []
    for game_id in game_ids():
        spec = _SPECS[game_id]
        for seats in spec.seats:
            if spec.cross_check is None or not spec.cross_check(seats, spec.defaults()):
                configurations.append((game_id, seats, {}))
        for seats, params in spec.extra_configurations:
            configurations.append((game_id, seats, dict(params)))
    return configurations
