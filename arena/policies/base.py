"""The policy interface, the random policy, and the name -> policy lookup."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any, Protocol

from arena.games.api import Game, Observation
from arena.games.params import GameError, did_you_mean
from arena.games.rng import Rng, derive_seed

HEURISTIC_MODULES = {
    "briscola": "arena.policies.briscola",
    "briscola-31": "arena.policies.briscola",
    "briscola-chiamata": "arena.policies.chiamata",
    "briscola-chiamata-carta": "arena.policies.chiamata",
    "briscola-chiamata-punti": "arena.policies.chiamata",
    "briscola-chiamata-morto": "arena.policies.chiamata",
    "briscola-chiamata-due-mazzi": "arena.policies.chiamata",
    "misere": "arena.policies.misere",
    "madrasso": "arena.policies.madrasso",
    "tressette": "arena.policies.tressette",
    "tressette-pozzo": "arena.policies.tressette_pozzo",
    "tressette-non-prendere": "arena.policies.tressette_non_prendere",
    "tressette-toro": "arena.policies.tressette_toro",
    "scopa": "arena.policies.scopa",
    "scopone": "arena.policies.scopa",
    "vecchia": "arena.policies.vecchia",
    "presidente": "arena.policies.presidente",
}
"""Game id -> module with a ``HeuristicPolicy(game, seat, seed)`` class."""

PLUGIN_GROUP = "cardarena.policies"
"""Entry point group where a game plugin names its heuristic class, under the game id."""


class Policy(Protocol):
    """Chooses one of the legal actions of an observation."""

    def act(self, observation: Observation) -> int:
        """The chosen action id."""
        ...


class RandomPolicy:
    """Uniform over the legal actions, from its own seeded generator."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Seed the generator from the match seed and the seat."""
        self.rng = Rng(derive_seed(seed, "random-policy", seat))

    def act(self, observation: Observation) -> int:
        """A uniformly random legal action."""
        return self.rng.choice(observation.legal_actions)


def _heuristic_class(game_id: str) -> Any:
    """The heuristic class of a built-in or plugin game, or None."""
    module_name = HEURISTIC_MODULES.get(game_id)
    if module_name is not None:
        return importlib.import_module(module_name).HeuristicPolicy
    for entry in entry_points(group=PLUGIN_GROUP):
        if entry.name == game_id:
            return entry.load()
    return None


def has_heuristic(game_id: str) -> bool:
    """True when a game, built in or from a plugin, has a heuristic policy."""
    if game_id in HEURISTIC_MODULES:
        return True
    return any(entry.name == game_id for entry in entry_points(group=PLUGIN_GROUP))


def policy_names() -> list[str]:
    """The reference policy names."""
    return ["random", "heuristic"]


def make_policy(name: str, game: Game, seat: int, seed: int) -> Policy:
    """A reference policy by name for one seat of a game."""
    if name == "random":
        return RandomPolicy(game, seat, seed)
    if name == "heuristic":
        heuristic = _heuristic_class(game.id)
        if heuristic is None:
            raise GameError(f"no heuristic policy for game {game.id!r}")
        policy: Policy = heuristic(game, seat, seed)
        return policy
    names = policy_names()
    raise GameError(f"unknown policy {name!r}{did_you_mean(name, names)}; "
                    f"valid policies: {', '.join(names)}")
