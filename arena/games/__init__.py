"""The rules engine: pure, deterministic, no I/O, no protobuf, no threads."""

from arena.compiled import EVERY_MODULE, use_compiled

COMPILED_MODULES = EVERY_MODULE
"""The modules ``arena engine build`` compiles: all of them but this one."""
ENGINE = use_compiled(__path__, "games")
"""The engine that runs: ``compiled`` (built by ``arena engine build``) or ``python``."""

from arena.games.api import (
    TERMINAL,
    ActionKind,
    ActionMeaning,
    Event,
    EventEntry,
    EventKind,
    Game,
    Observation,
    State,
)
from arena.games.params import (
    GameError,
    GameSpec,
    IllegalActionError,
    InvalidDealError,
    InvalidParameterError,
    Param,
    UnknownGameError,
)
from arena.games.registry import all_configurations, game_ids, get_spec, load_game

__all__ = [
    "ENGINE",
    "TERMINAL",
    "ActionKind",
    "ActionMeaning",
    "Event",
    "EventEntry",
    "EventKind",
    "Game",
    "GameError",
    "GameSpec",
    "IllegalActionError",
    "InvalidDealError",
    "InvalidParameterError",
    "Observation",
    "Param",
    "State",
    "UnknownGameError",
    "all_configurations",
    "game_ids",
    "get_spec",
    "load_game",
]
