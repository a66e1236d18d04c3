"""Briscola chiamata (RULES.md 1.4): placeholder until the family lands."""

from arena.games.params import GameSpec

SPECS: tuple[GameSpec, ...] = ()
