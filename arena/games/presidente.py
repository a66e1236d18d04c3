"""Placeholder: this game module is being written."""

from arena.games.params import GameSpec

SPECS: tuple[GameSpec, ...] = ()
