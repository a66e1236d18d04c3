"""The domain's reason codes on the wire: ``Reason`` to the protocol's ``ReasonCode`` and back."""

from __future__ import annotations

from arena.protocol.errors import ProtocolError
from arena.protocol.v1 import agent_pb2 as pb
from arena.reasons import Reason

WIRE_PREFIX = "REASON_CODE_"

_TO_WIRE: dict[Reason, int] = {reason: int(pb.ReasonCode.Value(WIRE_PREFIX + reason.name))
                               for reason in Reason}
_FROM_WIRE: dict[int, Reason] = {code: reason for reason, code in _TO_WIRE.items()}


def to_wire(reason: Reason) -> int:
    """The ``ReasonCode`` of a reason; a ProtocolError for anything that is no ``Reason``."""
    try:
        return _TO_WIRE[reason]
    except (KeyError, TypeError):
        raise ProtocolError(f"{reason!r} is not a reason code") from None


def from_wire(code: int) -> Reason:
    """The reason of a ``ReasonCode``; a ProtocolError for UNSPECIFIED and unknown codes."""
    try:
        return _FROM_WIRE[code]
    except (KeyError, TypeError):
        raise ProtocolError(f"{code!r} is not a ReasonCode (1..{max(_FROM_WIRE)})") from None
