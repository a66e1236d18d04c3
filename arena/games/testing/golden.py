"""Golden playthrough transcripts: a seeded match rendered as text, and its comparison with a file.

A transcript shows every decision (the legal set and the choice) up to the end of the first
hand, and the events as someone outside the game sees them; a rules change shows as a diff.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.games.api import Event, EventKind, Game, Observation, State
from arena.games.cards import HIDDEN
from arena.games.registry import get_spec
from arena.games.rng import Rng, derive_seed
from arena.games.testing.checks import align

Actor = Callable[[Observation], int]
"""Picks an action from a seat's observation (a policy's ``act``)."""
ActorFactory = Callable[[Game, int, int], Actor]
"""Makes the actor of one seat from the game, the seat and the match seed."""

GOLDEN_SEED = 20240607
MAX_LINES = 300
"""Decisions are shown up to the end of the first hand or this many lines, whichever is first."""
MAX_DIFF_LINES = 60


def uniform_actor(game: Game, seat: int, seed: int) -> Actor:
    """An actor picking uniformly among the legal actions, seeded by the match seed and seat."""
    rng = Rng(derive_seed(seed, "testing-uniform", seat))
    return lambda observation: rng.choice(observation.legal_actions)


def _cards(game: Game, cards: tuple[int, ...]) -> str:
    """Card names, ``??`` for a hidden card."""
    return " ".join("??" if card == HIDDEN else game.deck.short(card) for card in cards)


def render_event(game: Game, event: Event, viewers: list[int]) -> str:
    """One event in public form: private cards and values masked, with the seats that see them."""
    text = f"    {event.kind.name} seat {event.seat}"
    if event.cards:
        text += f": {_cards(game, event.cards)}"
    if event.values:
        text += f" values {list(event.values)}"
    if len(viewers) < game.num_players:
        text += f" (seen by {', '.join(map(str, viewers)) or 'nobody'})"
    return text


def public_events(state: State[Any], first: int) -> list[str]:
    """The events from index ``first`` on, rendered as someone outside the game sees them."""
    game = state.game
    full = state.full_events()
    views = [align(state.observation(seat).events, full) or [None] * len(full)
             for seat in range(game.num_players)]
    lines = []
    for index in range(first, len(full)):
        event = full[index]
        viewers = [seat for seat, events in enumerate(views) if events[index] == event]
        if len(viewers) < game.num_players:
            event = Event(event.kind, event.seat, (HIDDEN,) * len(event.cards))
        lines.append(render_event(game, event, viewers))
    return lines


def transcript(game: Game, seed: int = GOLDEN_SEED, actors: ActorFactory = uniform_actor,
               players: str = "each seat plays a seeded uniform choice",
               regenerate: str = "") -> str:
    """The transcript of a seeded match of ``game``: its decisions and public events.

    ``players`` and ``regenerate`` (how to rewrite the file) are noted in the header.
    """
    spec = get_spec(game.id)
    seats = [actors(game, seat, seed) for seat in range(game.num_players)]
    state = game.new_initial_state(seed)
    note = f"; regenerate: {regenerate}" if regenerate else ""
    lines = [
        f"# {game.id} (rules version {spec.rules_version}), {game.num_players} seats, "
        f"parameters {json.dumps(game.params, sort_keys=True)}",
        f"# seed {seed}, {players}{note}",
        "start",
        *public_events(state, 0),
    ]
    decisions = shown = 0
    recording = True
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        action = seats[seat](state.observation(seat))
        first = len(state.full_events())
        state.apply_action(action)
        decisions += 1
        if not recording:
            continue
        shown = decisions
        names = " ".join(state.action_to_string(a) for a in legal)
        chosen = state.action_to_string(action)
        lines.append(f"{decisions} seat {seat} legal [{names}] chose {chosen}")
        lines.extend(public_events(state, first))
        ended = any(e.kind == EventKind.HAND_END for e in state.full_events()[first:])
        recording = not ended and len(lines) < MAX_LINES
    if shown < decisions:
        lines.append(f"... {decisions - shown} more decisions not shown")
    lines.append(f"returns {json.dumps(state.returns())}")
    return "\n".join(lines) + "\n"


def check_transcript(path: Path, fresh: str, regenerate: str = "") -> None:
    """The stored transcript at ``path`` equals ``fresh``; else fail with the start of a diff."""
    hint = f"; if the change is intended, regenerate with: {regenerate}" if regenerate else ""
    if not path.exists():
        raise AssertionError(f"no golden transcript {path.name}{hint}")
    stored = path.read_text(encoding="utf-8")
    if fresh == stored:
        return
    diff = list(difflib.unified_diff(stored.splitlines(), fresh.splitlines(),
                                     f"stored {path.name}", "regenerated", lineterm=""))
    shown = "\n".join(diff[:MAX_DIFF_LINES])
    more = f"\n... {len(diff) - MAX_DIFF_LINES} more diff lines" * (len(diff) > MAX_DIFF_LINES)
    raise AssertionError(f"{path.name} differs from a fresh playthrough{hint}:\n{shown}{more}")


def write_transcript(path: Path, fresh: str) -> bool:
    """Write ``fresh`` to ``path`` unless it already holds it; True when the file changed."""
    if path.exists() and path.read_text(encoding="utf-8") == fresh:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(fresh, encoding="utf-8")
    return True
