"""Action ids on the wire (engine action + 1) and legal actions with their meanings."""

from __future__ import annotations

from arena.games import ActionMeaning, State
from arena.protocol.errors import ProtocolError
from arena.protocol.v1 import agent_pb2 as pb


def wire_action(engine_action: int) -> int:
    """The wire id of an engine action: the action plus one, so 0 is never an action."""
    if engine_action < 0:
        raise ProtocolError(f"engine action {engine_action} is negative: no wire id exists")
    return engine_action + 1


def engine_action(wire_id: int) -> int:
    """The engine action of a wire id; 0 (unset) and negative ids are rejected."""
    if wire_id <= 0:
        problem = "0 is the unset value" if wire_id == 0 else "ids are 1 or more"
        raise ProtocolError(f"action id {wire_id} is not an action: {problem}")
    return wire_id - 1


def legal_action_message(action: int, meaning: ActionMeaning) -> pb.LegalAction:
    """One legal action: its wire id and the fields of its meaning."""
    message = pb.LegalAction(id=wire_action(action), kind=int(meaning.kind),
                             cards=meaning.cards, captured=meaning.captured, suit=meaning.suit,
                             rank=meaning.rank, table=meaning.table, label=meaning.label)
    if meaning.value is not None:
        message.value = meaning.value
    return message


def legal_actions_message(state: State) -> list[pb.LegalAction]:
    """Every legal action of the state, in engine order, with its meaning."""
    return [legal_action_message(action, state.action_meaning(action))
            for action in state.legal_actions()]
