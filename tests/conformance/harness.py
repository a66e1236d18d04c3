"""Configurations, heuristic-mixed playouts and match-record digests of the conformance tests.

The game-level checkers and helpers are ``arena.games.testing``; this adds what needs the
reference policies or match records.

Run as a script (``python harness.py < records.json``, a list of match records) it replays
each with ``arena.match.record.replay`` and prints its digest; the determinism test compares
these with digests computed in-process.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from arena.games import Game, GameError, State, load_game, testing
from arena.games.params import ParamValue
from arena.games.registry import all_configurations
from arena.games.testing import digest, out_of_play
from arena.match.record import MatchRecord
from arena.match.record import replay as replay_record
from arena.policies import Policy, make_policy

Config = tuple[str, int, dict[str, ParamValue]]
StepHook = Callable[[State], None]

CONFIGS: list[Config] = all_configurations()
"""Every registered (game id, seats, parameters); the tests are parametrised over it."""


def config_id(config: Config) -> str:
    """A short, file-name-safe id such as ``briscola-4p-hands=2``."""
    game_id, seats, params = config
    parts = [game_id, f"{seats}p"]
    for name, value in sorted(params.items()):
        text = str(value).lower() if isinstance(value, bool) else str(value)
        parts.append(f"{name}={text}")
    return "-".join(parts)


CONFIG_IDS = [config_id(config) for config in CONFIGS]
HIDDEN_CONFIGS = [config for config in CONFIGS
                  if not load_game(config[0], config[1], config[2]).perfect_information]
"""The configurations that hide something from some seat (the resampling can find a leak)."""
HIDDEN_CONFIG_IDS = [config_id(config) for config in HIDDEN_CONFIGS]


def make_game(config: Config) -> Game:
    """Load the game of a configuration."""
    game_id, seats, params = config
    return load_game(game_id, seats, params)


HEURISTIC_DECISIONS = 150
"""Heuristic moves are mixed in over this many decisions (each costs an observation)."""


class Chooser:
    """Picks actions for test playouts: uniformly, or half the time by the heuristic policy.

    The heuristic (when the game has one) keeps games such as Briscola a 31 from ending at
    the first random false claim, so playouts reach late positions too.
    """

    def __init__(self, game: Game, seed: int, heuristic: bool) -> None:
        """Seed the generator; load the heuristic policies when asked and available."""
        self.rng = random.Random(seed)
        self.policies: list[Policy] = []
        if heuristic:
            try:
                self.policies = [make_policy("heuristic", game, seat, seed)
                                 for seat in range(game.num_players)]
            except (GameError, ImportError):
                self.policies = []

    def choose(self, state: State) -> int:
        """An action for the player to act."""
        heuristic = self.policies and len(state.history()) < HEURISTIC_DECISIONS
        if heuristic and self.rng.random() < 0.5:
            seat = state.current_player()
            return self.policies[seat].act(state.observation(seat))
        return self.rng.choice(state.legal_actions())


def playout(game: Game, seed: int, stop: int | None = None, hook: StepHook | None = None,
            heuristic: bool | None = None) -> State:
    """Play a seeded match to the end, or until ``stop`` actions; ``hook`` sees every state.

    Odd seeds mix in the heuristic policy unless ``heuristic`` says otherwise.
    """
    chooser = Chooser(game, seed, seed % 2 == 1 if heuristic is None else heuristic)
    return testing.playout(game, seed, stop, hook, chooser.choose)


@dataclass(frozen=True)
class Profile:
    """What a few uniformly random complete matches of a configuration show."""

    mean_decisions: float
    out_of_play: frozenset[int]
    """Cards the rules set aside: seen in no event but HAND_END."""


PROFILE_DECISIONS = 400
"""A profile plays at least four matches and at least this many decisions."""


@cache
def profile(key: str) -> Profile:
    """The profile of the configuration with id ``key``, from uniformly random matches."""
    game = make_game(CONFIGS[CONFIG_IDS.index(key)])
    states: list[State] = []
    decisions = 0
    while len(states) < 4 or (decisions < PROFILE_DECISIONS and len(states) < 200):
        states.append(playout(game, len(states), heuristic=False))
        decisions += len(states[-1].history())
    return Profile(decisions / len(states), out_of_play(game, states))


def seeds_within(config: Config, decisions: int, least: int, most: int) -> range:
    """Seeds 0.. for about ``decisions`` decisions in all, between ``least`` and ``most``."""
    count = int(decisions / max(1.0, profile(config_id(config)).mean_decisions))
    return range(max(least, min(most, count)))


def replay_digests(records: Sequence[dict[str, Any]]) -> list[str]:
    """The digest of each match record (``MatchRecord.to_dict`` form), replayed from its seed."""
    return [digest(replay_record(MatchRecord.from_dict(record))) for record in records]


def records_of(states: Sequence[State]) -> list[dict[str, Any]]:
    """Match records of finished playouts, in their JSON-ready form."""
    return [MatchRecord.from_state(state, ["random"] * state.game.num_players).to_dict()
            for state in states]


if __name__ == "__main__":
    for line in replay_digests(json.load(sys.stdin)):
        print(line)
