"""What a spectator may see of a deal: the events every seat sees, as every seat sees them."""

from __future__ import annotations

from arena.games import Event, State
from arena.games.api import ALL_SEATS
from arena.games.cards import HIDDEN


def public_events(state: State, start: int = 0) -> list[Event]:
    """The event log from entry ``start`` as a spectator sees it: the entries every seat sees,
    their cards only where every seat may see them (else ``HIDDEN``, with no values)."""
    everyone = (1 << state.game.num_players) - 1
    log = state._log
    audience = state._audience
    events = []
    for index in range(start, len(log)):
        kind, seat, cards, values, viewers = log[index]
        if audience is not None and audience[index] & everyone != everyone:
            continue
        if viewers == ALL_SEATS or viewers & everyone == everyone:
            events.append(Event(kind, seat, cards, values))
        else:
            events.append(Event(kind, seat, (HIDDEN,) * len(cards), ()))
    return events
