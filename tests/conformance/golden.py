"""Golden playthrough transcripts: rendering one per configuration, and rewriting the files."""

from __future__ import annotations

import json
from pathlib import Path

from arena.games import Event, EventKind, Game, State, get_spec
from arena.games.cards import HIDDEN
from arena.policies import make_policy

from .harness import CONFIGS, Config, align, config_id, make_game

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden"
GOLDEN_SEED = 20240607
MAX_LINES = 300
"""Decisions are shown up to the end of the first hand or this many lines, whichever is first."""
REGENERATE = "python tests/regen_golden.py"


def golden_path(config: Config) -> Path:
    """The transcript file of a configuration."""
    return GOLDEN_DIR / f"{config_id(config)}.txt"


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


def public_events(state: State, first: int) -> list[str]:
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


def transcript(config: Config) -> str:
    """The golden transcript of a configuration: seeded random play, decisions and events."""
    game = make_game(config)
    spec = get_spec(game.id)
    policies = [make_policy("random", game, seat, GOLDEN_SEED) for seat in range(game.num_players)]
    state = game.new_initial_state(GOLDEN_SEED)
    lines = [
        f"# {game.id} (rules version {spec.rules_version}), {game.num_players} seats, "
        f"parameters {json.dumps(game.params, sort_keys=True)}",
        f"# seed {GOLDEN_SEED}, each seat plays the seeded random policy; regenerate: {REGENERATE}",
        "start",
        *public_events(state, 0),
    ]
    decisions = shown = 0
    recording = True
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        action = policies[seat].act(state.observation(seat))
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


def stale_files() -> list[Path]:
    """Transcript files that belong to no registered configuration."""
    wanted = {golden_path(config) for config in CONFIGS}
    return sorted(path for path in GOLDEN_DIR.glob("*.txt") if path not in wanted)
