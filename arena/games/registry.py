"""Game ids -> specs and factories, and ``load_game`` with parameter validation.

Built-in games come from ``BUILTIN_MODULES``; installed packages add games through the entry
point group ``cardarena.games``. A plugin that fails to load, or that reuses a registered id, is
skipped and recorded in ``plugin_problems()``; it never hides the built-in games.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import ModuleType
from typing import TYPE_CHECKING, cast

from arena.games.api import Game
from arena.games.params import GameSpec, Params, ParamValue, UnknownGameError, did_you_mean

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

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

ENTRY_POINT_GROUP = "cardarena.games"
"""Entry points of this group name a module with ``SPECS``, or a ``GameSpec`` or tuple of them."""

logger = logging.getLogger(__name__)

@dataclass(frozen=True)
class PluginProblem:
    """A plugin (or one of its games) that was skipped, and why."""

    package: str
    entry_point: str
    message: str

    def __str__(self) -> str:
        """One line naming the package, the entry point and the problem."""
        return f"game plugin {self.entry_point!r} of package {self.package!r}: {self.message}"


_SPECS: dict[str, GameSpec] = {}
_PROBLEMS: list[PluginProblem] = []
_builtins_loaded = False
_plugins_loaded = False


def register(spec: GameSpec) -> None:
    """Add a game id; a duplicate id is an error."""
    _load_all()
    _add(spec)


def _add(spec: GameSpec) -> None:
    """Add a game id to the catalogue; a duplicate id is an error naming the holder."""
    holder = _SPECS.get(spec.id)
    if holder is not None:
        raise ValueError(f"game id {spec.id!r} is already registered by {holder.origin!r}")
    _SPECS[spec.id] = spec


def plugin_entry_points() -> Iterable[EntryPoint]:
    """The installed entry points of the ``cardarena.games`` group, in a stable order."""
    from importlib.metadata import entry_points  # slow to import: only when plugins are read
    found = entry_points(group=ENTRY_POINT_GROUP)
    return sorted(found, key=lambda ep: (package_name(ep), ep.name, ep.value))


def package_name(entry_point: EntryPoint) -> str:
    """The distribution that declares an entry point (its module when unknown)."""
    dist = entry_point.dist
    if dist is not None and dist.name:
        return str(dist.name)
    return entry_point.value.partition(":")[0].partition(".")[0] or entry_point.name


def specs_of(loaded: object) -> tuple[GameSpec, ...]:
    """The ``GameSpec``s that a loaded entry point provides, or a ``TypeError`` saying why not."""
    provided = loaded
    if isinstance(loaded, ModuleType):
        if not hasattr(loaded, "SPECS"):
            raise TypeError(f"module {loaded.__name__} has no SPECS")
        provided = loaded.SPECS
    if isinstance(provided, GameSpec):
        return (provided,)
    if isinstance(provided, tuple | list) and all(isinstance(s, GameSpec) for s in provided):
        return tuple(provided)
    raise TypeError(f"expected a GameSpec, a tuple of GameSpec or a module with SPECS, "
                    f"got {type(provided).__name__}")


def load_plugin(entry_point: EntryPoint, taken: Mapping[str, GameSpec]
                ) -> tuple[list[GameSpec], list[PluginProblem]]:
    """The specs of one entry point, marked with their package, and the problems found.

    A game whose id is in ``taken`` (or repeated within the plugin) is skipped on its own.
    """
    package = package_name(entry_point)
    label = f"{entry_point.name} = {entry_point.value}"
    try:
        specs = specs_of(entry_point.load())
    except Exception as error:  # any failure inside foreign code skips that plugin only
        message = f"skipped: {type(error).__name__}: {error}"
        return [], [PluginProblem(package, label, message)]
    holders = {game_id: spec.origin for game_id, spec in taken.items()}
    accepted: list[GameSpec] = []
    problems: list[PluginProblem] = []
    for spec in specs:
        holder = holders.get(spec.id)
        if holder is not None:
            problems.append(PluginProblem(
                package, label, f"game {spec.id!r} skipped: the id is already registered by "
                                f"{holder!r}"))
            continue
        holders[spec.id] = package
        accepted.append(replace(spec, origin=package))
    return accepted, problems


def _load_plugins() -> None:
    """Register the games of every installed plugin, recording the ones skipped."""
    for entry_point in plugin_entry_points():
        specs, problems = load_plugin(entry_point, _SPECS)
        for spec in specs:
            _SPECS[spec.id] = spec
        for problem in problems:
            logger.warning("%s", problem)
        _PROBLEMS.extend(problems)


def _load_builtins() -> None:
    """Import the built-in game modules, once."""
    global _builtins_loaded
    if _builtins_loaded:
        return
    _builtins_loaded = True
    for module_name in BUILTIN_MODULES:
        module = importlib.import_module(module_name)
        for spec in module.SPECS:
            _add(spec)


def _load_all() -> None:
    """Import the built-in game modules, then the plugins, once."""
    global _plugins_loaded
    _load_builtins()
    if _plugins_loaded:
        return
    _plugins_loaded = True
    _load_plugins()


def reload() -> None:
    """Forget every registered game and load the built-ins and the installed plugins again."""
    global _builtins_loaded, _plugins_loaded
    _SPECS.clear()
    _PROBLEMS.clear()
    _builtins_loaded = _plugins_loaded = False
    _load_all()


def plugin_problems() -> list[PluginProblem]:
    """The plugins, or plugin games, skipped while loading the catalogue."""
    _load_all()
    return list(_PROBLEMS)


def game_ids() -> list[str]:
    """Every registered game id, in catalogue order (built-ins first, then plugins)."""
    _load_all()
    return list(_SPECS)


def get_spec(game_id: str) -> GameSpec:
    """The spec of a game id, or an error listing the valid ids. A built-in id is found
    without reading the installed plugins (a plugin never takes a built-in id)."""
    _load_builtins()
    spec = _SPECS.get(game_id)
    if spec is None:
        _load_all()
        spec = _SPECS.get(game_id)
    if spec is None:
        raise UnknownGameError(
            f"unknown game {game_id!r}{did_you_mean(game_id, _SPECS)}; "
            f"valid games: {', '.join(_SPECS)}"
        )
    return spec


def load_game(game_id: str, players: int | None = None, params: Params | None = None) -> Game:
    """A game with a validated seat count and parameters."""
    spec = get_spec(game_id)
    seats, values = spec.resolve(players, params)
    return cast(Game, spec.factory(spec, seats, values))


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
