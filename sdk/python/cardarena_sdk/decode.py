"""Engine observations from a match's DecisionRequests, decoding each event only once.

A seat's event history only grows during a match, so the decoder keeps the events it has
decoded and converts only the new ones; when the history it is given does not continue the
kept one (a shorter list, or a different last kept event) it starts over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.games import Event, Observation
    from arena.protocol.schema import agent as pb


class ObservationDecoder:
    """Decodes one seat's observations of one match."""

    __slots__ = ("_events",)

    def __init__(self) -> None:
        """Start with no events."""
        self._events: tuple[Event, ...] = ()

    def events(self, messages: Sequence[pb.Event]) -> tuple[Event, ...]:
        """The events of a message, reusing those decoded for earlier requests."""
        from arena.protocol import event_from_message

        kept = self._events
        count = len(kept)
        if count and (len(messages) < count or event_from_message(messages[count - 1])
                      != kept[-1]):
            kept, count = (), 0
        if len(messages) > count:
            kept += tuple(event_from_message(messages[index])
                          for index in range(count, len(messages)))
        self._events = kept
        return kept

    def observation(self, message: pb.Observation, legal_actions: Sequence[int]) -> Observation:
        """The engine Observation of a message, with the engine ids of its legal actions."""
        from arena.games import Observation

        m = message
        return Observation(
            game=m.game, seat=m.seat, num_seats=m.num_seats, hand_number=m.hand_number,
            dealer=m.dealer, phase=m.phase, current_player=m.current_player,
            hand=tuple(m.hand), hand_sizes=tuple(m.hand_sizes), points=tuple(m.points),
            scores=tuple(m.scores), events=self.events(m.events),
            legal_actions=tuple(legal_actions),
            visible_hands=tuple((v.seat, tuple(v.cards)) for v in m.visible_hands),
            trump_suit=m.trump_suit, trump_card=m.trump_card, called_card=m.called_card,
            table=tuple(m.table), trick=tuple((t.seat, t.card) for t in m.trick),
            stock_size=m.stock_size, teammates=tuple(m.teammates),
        )
