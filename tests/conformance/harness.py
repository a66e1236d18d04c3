"""Configurations, seeded playouts, replays and match digests shared by the conformance tests.

Run as a script (``python harness.py < records.json``, a list of match records) it replays
each with ``arena.match.record.replay`` and prints its digest; the determinism test compares
these with digests computed in-process.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from arena.games import Event, EventKind, Game, GameError, IllegalActionError, State, load_game
from arena.games.cards import HIDDEN
from arena.games.params import ParamValue
from arena.games.registry import all_configurations
from arena.match.record import MatchRecord
from arena.match.record import replay as replay_record
from arena.policies import Policy, make_policy

Config = tuple[str, int, dict[str, ParamValue]]
StepHook = Callable[[State], None]

MAX_STEPS = 100_000
"""A playout longer than this counts as a game that never ends."""

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
    state = game.new_initial_state(seed)
    chooser = Chooser(game, seed, seed % 2 == 1 if heuristic is None else heuristic)
    for _ in range(MAX_STEPS):
        if hook is not None:
            hook(state)
        if state.is_terminal() or (stop is not None and len(state.history()) >= stop):
            return state
        state.apply_action(chooser.choose(state))
    raise AssertionError(f"{game!r} seed {seed}: no end after {MAX_STEPS} actions")


def states_at(game: Game, seed: int, actions: Sequence[int], stops: Sequence[int]
              ) -> Iterator[State]:
    """One state advanced through ``actions``, yielded after each of the (sorted) ``stops``."""
    state = game.new_initial_state(seed)
    done = 0
    for stop in sorted(set(stops)):
        for action in actions[done:stop]:
            state.apply_action(action)
        done = max(done, stop)
        yield state


def pick_stops(rng: random.Random, length: int, count: int, cap: int | None = None) -> list[int]:
    """The start (0) and ``count - 1`` random points of a history (within ``cap``), sorted."""
    top = max(1, min(length, cap or length))
    return sorted({0, *(rng.randrange(top) for _ in range(count - 1))})


def replay(game: Game, seed: int, actions: Sequence[int],
           deal: Sequence[Sequence[int]] | None = None) -> State | None:
    """The state after ``actions`` from a seed (and injected deals), or None if one is illegal."""
    state = game.new_initial_state(seed, deal=deal)
    for action in actions:
        try:
            state.apply_action(action)
        except IllegalActionError:
            return None
    return state


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
    used: set[int] = set()
    decisions = matches = 0
    while matches < 4 or (decisions < PROFILE_DECISIONS and matches < 200):
        state = playout(game, matches, heuristic=False)
        matches += 1
        decisions += len(state.history())
        for event in state.full_events():
            if event.kind != EventKind.HAND_END:
                used.update(event.cards)
    return Profile(decisions / matches, frozenset(set(game.deck.cards) - used))


def seeds_within(config: Config, decisions: int, least: int, most: int) -> range:
    """Seeds 0.. for about ``decisions`` decisions in all, between ``least`` and ``most``."""
    count = int(decisions / max(1.0, profile(config_id(config)).mean_decisions))
    return range(max(least, min(most, count)))


def masked_form(real: Event, mine: Event) -> bool:
    """True when ``mine`` is ``real`` as given, or with its cards hidden and values dropped."""
    return ((mine.kind, mine.seat) == (real.kind, real.seat)
            and mine.cards in (real.cards, (HIDDEN,) * len(real.cards))
            and mine.values in (real.values, ()))


def align(view: Sequence[Event], full: Sequence[Event]) -> list[Event | None] | None:
    """A seat's event log matched, in order, to the full log (None where the seat has no entry).

    A seat's log is the full log with cards and values masked, possibly leaving out events the
    seat cannot know of at all (another table's); None when it is not such a log.
    """
    aligned: list[Event | None] = [None] * len(full)
    index = 0
    for mine in view:
        while index < len(full) and not masked_form(full[index], mine):
            index += 1
        if index == len(full):
            return None
        aligned[index] = mine
        index += 1
    return aligned


def digest(state: State) -> str:
    """SHA-256 of the history, deals, full event log and returns of a state."""
    record = {
        "history": state.history(),
        "deals": [list(order) for order in state.deals()],
        "events": [event.to_dict() for event in state.full_events()],
        "returns": state.returns(),
    }
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


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
