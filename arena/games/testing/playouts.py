"""Seeded playouts, replays, snapshots and digests that the game checkers are built on."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from arena.games.api import DealInput, Game, State
from arena.games.params import IllegalActionError

Chooser = Callable[[State[Any]], int]
"""Picks the action of the player to act in a state."""
StepHook = Callable[[State[Any]], None]
"""Sees every state of a playout, before its action is chosen."""
Snapshot = tuple[Any, ...]

MAX_STEPS = 100_000
"""A playout longer than this counts as a game that never ends."""


def where(state: State[Any]) -> str:
    """A locator for failure messages: game, seed, and the number and last of the actions."""
    actions = state.history()
    return f"{state.game!r} seed {state.seed()} after {len(actions)} actions (last {actions[-8:]})"


def uniform_chooser(seed: int) -> Chooser:
    """A chooser picking uniformly among the legal actions, from ``random.Random(seed)``."""
    rng = random.Random(seed)
    return lambda state: rng.choice(state.legal_actions())


def playout(game: Game, seed: int, stop: int | None = None, hook: StepHook | None = None,
            choose: Chooser | None = None) -> State[Any]:
    """Play a seeded match to the end, or until ``stop`` actions; ``hook`` sees every state.

    ``choose`` picks the actions (default: uniformly at random, seeded by ``seed``).
    """
    state = game.new_initial_state(seed)
    chooser = uniform_chooser(seed) if choose is None else choose
    for _ in range(MAX_STEPS):
        if hook is not None:
            hook(state)
        if state.is_terminal() or (stop is not None and len(state.history()) >= stop):
            return state
        state.apply_action(chooser(state))
    raise AssertionError(f"{game!r} seed {seed}: no end after {MAX_STEPS} actions")


def states_at(game: Game, seed: int, actions: Sequence[int], stops: Sequence[int]
              ) -> Iterator[State[Any]]:
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


def replay(game: Game, seed: int, actions: Sequence[int], deal: DealInput = None
           ) -> State[Any] | None:
    """The state after ``actions`` from a seed (and injected deals), or None if one is illegal."""
    state = game.new_initial_state(seed, deal=deal)
    for action in actions:
        try:
            state.apply_action(action)
        except IllegalActionError:
            return None
    return state


def snapshot(state: State[Any], seats: Sequence[int] | None = None) -> Snapshot:
    """Everything observable through the API (observations of ``seats``, default all)."""
    chosen = range(state.game.num_players) if seats is None else seats
    return (state.history(), state.returns(), state.current_player(), state.is_terminal(),
            state.legal_actions(), state.deals(), state.full_events(),
            tuple(state.observation(seat) for seat in chosen))


def digest(state: State[Any]) -> str:
    """SHA-256 of the history, deals, full event log and returns of a state."""
    record = {
        "history": state.history(),
        "deals": [list(order) for order in state.deals()],
        "events": [event.to_dict() for event in state.full_events()],
        "returns": state.returns(),
    }
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
