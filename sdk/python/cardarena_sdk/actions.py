"""Finding legal actions by id, kind or card in a DecisionRequest's list."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from arena.games import ActionKind
    from arena.protocol.schema import agent as pb

KindLike: TypeAlias = "ActionKind | int | str"
"""An action kind: ``ActionKind.PLAY``, its number, or a name ("PLAY", "capture")."""


def action_kind(kind: KindLike) -> ActionKind:
    """The ActionKind of an enum member, a number or a name; unknown kinds are a ValueError."""
    from arena.games import ActionKind

    if isinstance(kind, str):
        name = kind.strip().upper().removeprefix("ACTION_KIND_")
        try:
            return ActionKind[name]
        except KeyError:
            names = ", ".join(member.name for member in ActionKind)
            raise ValueError(f"unknown action kind {kind!r}; kinds: {names}") from None
    try:
        return ActionKind(int(kind))
    except ValueError:
        raise ValueError(f"action kind {kind} is not a known ActionKind (1 .. "
                         f"{max(ActionKind)})") from None


def action_by_id(actions: Sequence[pb.LegalAction], action_id: int) -> pb.LegalAction:
    """The legal action with wire id ``action_id``; a ValueError when there is none."""
    for action in actions:
        if action.id == action_id:
            return action
    raise ValueError(f"action id {action_id} is not legal; legal: {describe(actions)}")


def actions_of_kind(actions: Sequence[pb.LegalAction], kind: KindLike) -> list[pb.LegalAction]:
    """The legal actions of one kind, in the request's order."""
    wanted = action_kind(kind)
    return [action for action in actions if int(action.kind) == wanted]


def actions_for_card(actions: Sequence[pb.LegalAction], card: int,
                     kind: KindLike | None = None) -> list[pb.LegalAction]:
    """The legal actions whose ``cards`` are exactly ``card`` (optionally of one kind)."""
    wanted = None if kind is None else action_kind(kind)
    return [action for action in actions
            if len(action.cards) == 1 and action.cards[0] == card
            and (wanted is None or int(action.kind) == wanted)]


def action_for_card(actions: Sequence[pb.LegalAction], card: int,
                    kind: KindLike | None = None) -> int:
    """The wire id of the first legal action that plays exactly ``card``; else a ValueError."""
    found = actions_for_card(actions, card, kind)
    if not found:
        of_kind = "" if kind is None else f" of kind {action_kind(kind).name}"
        raise ValueError(f"no legal action{of_kind} for card {card}; legal: {describe(actions)}")
    return found[0].id


def playable_cards(actions: Sequence[pb.LegalAction]) -> list[int]:
    """The cards that some single-card PLAY or CAPTURE action plays, each once, in order."""
    from arena.games import ActionKind

    cards: list[int] = []
    for action in actions:
        if int(action.kind) in (ActionKind.PLAY, ActionKind.CAPTURE) and len(action.cards) == 1:
            card = action.cards[0]
            if card not in cards:
                cards.append(card)
    return cards


def describe(actions: Sequence[pb.LegalAction], limit: int = 20) -> str:
    """A short text listing legal actions as "id (label)", for error messages."""
    shown = ", ".join(f"{action.id} ({action.label or _kind_name(action.kind)})"
                      for action in actions[:limit])
    more = len(actions) - limit
    return shown + (f", ... {more} more" if more > 0 else "") if actions else "none"


def _kind_name(kind: int) -> str:
    """The name of an action kind number, or the number when it is unknown."""
    from arena.games import ActionKind

    try:
        return ActionKind(kind).name
    except ValueError:
        return f"kind {kind}"
