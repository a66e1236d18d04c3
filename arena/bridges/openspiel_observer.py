"""What an OpenSpiel observer of a card arena game shows: strings and tensors of one seat.

The tensor is the fixed-shape vector of ``arena.bridges.tensors`` (the one PettingZoo agents get),
made from ``state.observation(seat)`` only; ``dict`` holds a named view of each segment. The
information-state string is the seat's whole observation as one line of text, its event log
from the first hand on (perfect recall); the observation string keeps the current hand's
events only. Before the deal (the chance nodes drawing the seed) both say how many of the
seed's bytes are drawn, never their values, and the tensor holds the seat only.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from arena.bridges.tensors import HandEvents, Layout, Vector, encode
from arena.games import EventKind, Observation, State

HAND_BOUNDARIES = frozenset({EventKind.HAND_START, EventKind.REDEAL})


class SeatView(Protocol):
    """An OpenSpiel state of the bridge as an observer reads it."""

    @property
    def engine(self) -> State[Any] | None:
        """The engine state (None while the seed is being drawn)."""

    @property
    def seed_bytes(self) -> int:
        """How many bytes of the seed are drawn."""

    def hand_events(self, seat: int, shape: Layout) -> HandEvents | None:
        """The seat's memo of the events read so far (see ``arena.bridges.tensors.encode``)."""


SCALAR_FIELDS = ("seat", "hand_number", "dealer", "phase", "current_player", "hand",
                 "hand_sizes", "points", "scores", "legal_actions", "visible_hands",
                 "trump_suit", "trump_card", "called_card", "table", "trick", "stock_size",
                 "teammates")
"""The observation's fields other than its events, in the order the string gives them."""


def observation_text(observation: Observation, perfect_recall: bool) -> str:
    """An observation as one line of text: its fields, then its events (every event, or the
    current hand's only), each as kind number, seat, cards and values."""
    events = observation.events
    first = 0
    if not perfect_recall:
        first = next((index for index in range(len(events) - 1, -1, -1)
                      if events[index].kind in HAND_BOUNDARIES), 0)
    fields = " ".join(f"{name}={getattr(observation, name)!r}" for name in SCALAR_FIELDS)
    log = ";".join(f"{event.kind:d} {event.seat} {event.cards!r} {event.values!r}"
                   for event in events[first:])
    return f"{fields} events={log}"


class CardObserver:
    """OpenSpiel's Python observer interface (``tensor``, ``dict``, ``set_from``,
    ``string_from``) over the shared vector; ``perfect_recall`` picks the string's history."""

    def __init__(self, shape: Layout, perfect_recall: bool) -> None:
        """A zero tensor of the layout and its named segment views."""
        self.shape = shape
        self.perfect_recall = perfect_recall
        self.tensor: Vector = np.zeros(shape.size, np.float32)
        self.last: tuple[State[Any], int, int, int] | None = None
        """The engine state, its event and action counts and the seat the tensor was last
        set from."""
        self.dict: dict[str, Vector] = {}
        for segment in shape.segments:
            start = shape.starts[segment.name]
            self.dict[segment.name] = self.tensor[start:start + segment.size]

    def set_from(self, state: SeatView, player: int) -> None:
        """Fill ``tensor`` with what ``player`` knows of ``state``."""
        engine = state.engine
        if engine is None:
            self.last = None
            self.tensor.fill(0.0)
            self.dict["seat"][player] = 1.0
            return
        key = (engine, engine.event_count(), len(engine.history()), player)
        if self.last is not None and key[0] is self.last[0] and key[1:] == self.last[1:]:
            return  # OpenSpiel asks twice for one tensor
        self.tensor[:] = encode(engine.observation(player), self.shape,
                                state.hand_events(player, self.shape))
        self.last = key

    def string_from(self, state: SeatView, player: int) -> str:
        """What ``player`` knows of ``state`` as text."""
        engine = state.engine
        if engine is None:
            return f"seat {player}: dealing, {state.seed_bytes} seed bytes drawn"
        return observation_text(engine.observation(player), self.perfect_recall)
