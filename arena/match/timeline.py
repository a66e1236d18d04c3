"""A match as a sequence of events, each tied to the action (and seat) that caused it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arena.games import Event, Game, State
from arena.match.record import apply_recorded


@dataclass(frozen=True, slots=True)
class Step:
    """One event of the unmasked log, with the seat and action that caused it (None for chance).

    ``label`` is the action's name, set only on the event that records the decision: the
    first event of the action that belongs to the acting seat.
    """

    event: Event
    actor: int | None = None
    action: int | None = None
    label: str | None = None


def match_steps(game: Game, seed: int, actions: Sequence[int]) -> Iterator[Step]:
    """Replay ``actions`` on a fresh state and yield every event with its cause."""
    state = game.new_initial_state(seed)
    events = state.full_events()
    yield from (Step(event) for event in events)
    seen = len(events)
    total = len(actions)
    for index, action in enumerate(actions):
        actor = state.current_player()
        label = action_label(state, action)
        apply_recorded(state, index, action, total)
        decided = False
        for event in state.full_events(seen):
            decision = not decided and event.seat == actor
            decided = decided or decision
            yield Step(event, actor, action, label if decision else None)
        seen = state.event_count()


def action_label(state: State, action: int) -> str:
    """The action's name in this state, or its id when the game has no name for it."""
    try:
        return state.action_to_string(action)
    except (ValueError, IndexError, KeyError):
        return str(action)
