"""Engine observations and events <-> their protobuf messages, exactly and both ways."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.games import Event, EventKind, Observation
from arena.protocol.actions import engine_action
from arena.protocol.errors import ProtocolError
from arena.protocol.v1 import agent_pb2 as pb


def event_to_message(event: Event) -> pb.Event:
    """The message of one event."""
    return pb.Event(kind=int(event.kind), seat=event.seat, cards=event.cards,
                    values=event.values)


_EVENT_KINDS = {int(kind): kind for kind in EventKind}


def event_from_message(message: pb.Event) -> Event:
    """The event of a message; an unknown or unset kind is a ProtocolError."""
    kind = _EVENT_KINDS.get(message.kind)
    if kind is None:
        raise ProtocolError(f"event kind {message.kind} is not a known EventKind")
    return Event(kind, message.seat, tuple(message.cards), tuple(message.values))


def add_events(target: pb.Observation | pb.MatchEnd, events: Iterable[Event]) -> None:
    """Append the messages of ``events`` to the ``events`` field of ``target``, in order."""
    add = target.events.add
    for event in events:
        message = add()
        message.kind = event.kind
        message.seat = event.seat
        if event.cards:
            message.cards.extend(event.cards)
        if event.values:
            message.values.extend(event.values)


def observation_to_message(observation: Observation) -> pb.Observation:
    """The message of an observation (its legal actions travel in the DecisionRequest)."""
    o = observation
    message = pb.Observation(
        game=o.game, seat=o.seat, num_seats=o.num_seats, hand_number=o.hand_number,
        dealer=o.dealer, phase=o.phase, current_player=o.current_player, hand=o.hand,
        hand_sizes=o.hand_sizes, points=o.points, scores=o.scores,
        visible_hands=[pb.VisibleHand(seat=seat, cards=cards) for seat, cards in o.visible_hands],
        trump_suit=o.trump_suit, trump_card=o.trump_card, called_card=o.called_card,
        table=o.table, trick=[pb.TrickPlay(seat=seat, card=card) for seat, card in o.trick],
        stock_size=o.stock_size, teammates=o.teammates,
    )
    add_events(message, o.events)
    return message


def observation_from_message(message: pb.Observation,
                             legal_actions: Sequence[int] = ()) -> Observation:
    """The observation of a message, with the engine ``legal_actions`` it does not carry."""
    m = message
    return Observation(
        game=m.game, seat=m.seat, num_seats=m.num_seats, hand_number=m.hand_number,
        dealer=m.dealer, phase=m.phase, current_player=m.current_player, hand=tuple(m.hand),
        hand_sizes=tuple(m.hand_sizes), points=tuple(m.points), scores=tuple(m.scores),
        events=tuple(event_from_message(event) for event in m.events),
        legal_actions=tuple(legal_actions),
        visible_hands=tuple((v.seat, tuple(v.cards)) for v in m.visible_hands),
        trump_suit=m.trump_suit, trump_card=m.trump_card, called_card=m.called_card,
        table=tuple(m.table), trick=tuple((t.seat, t.card) for t in m.trick),
        stock_size=m.stock_size, teammates=tuple(m.teammates),
    )


def observation_from_request(request: pb.DecisionRequest) -> Observation:
    """The engine observation of a DecisionRequest, legal actions taken from its action ids."""
    legal = sorted(engine_action(action.id) for action in request.legal_actions)
    return observation_from_message(request.observation, legal)
