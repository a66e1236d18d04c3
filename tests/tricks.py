"""The tricks an engine played, read from a state's event log, for tests that check who takes
a trick against the engine."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from arena.games import EventKind, State
from arena.games.tricks import NO_TRUMP


class PlayedTrick(NamedTuple):
    """One trick of the log: its cards in play order, the trump in force, the seat that played
    each card, and the seat that took it."""

    cards: tuple[int, ...]
    trump: int
    players: tuple[int, ...]
    winner: int


def played_tricks(state: State) -> Iterator[PlayedTrick]:
    """Every trick in ``state``'s log, the trump being the last TRUMP event of its hand."""
    trump, seat_of = NO_TRUMP, {}
    for kind, seat, cards, values in state.event_entries():
        if kind == EventKind.HAND_START:
            trump, seat_of = NO_TRUMP, {}
        elif kind == EventKind.TRUMP:
            trump = values[0]
        elif kind in (EventKind.PLAY, EventKind.PLAY_FACE_DOWN):
            seat_of.update((card, seat) for card in cards)
        elif kind == EventKind.TRICK:
            yield PlayedTrick(tuple(cards), trump, tuple(seat_of[card] for card in cards), seat)
