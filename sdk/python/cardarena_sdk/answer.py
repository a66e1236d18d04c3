"""A bot's answer written straight to the bytes of ``PlayResponse(decision=Decision(...))``.

``decision_bytes`` gives exactly what protobuf serializes for that message (fields in
field-number order, each left out at its proto3 default) without building message objects;
``serialize_response`` is the server's response serializer, passing such bytes through and
serializing any other PlayResponse (Ready) with protobuf.
"""

from __future__ import annotations

import operator

from arena.protocol.base128 import encode as varint
from arena.protocol.replies import ACTION_ID_KEY, DEBUG_KEY, DECISION_KEY, REQUEST_ID_KEY
from arena.protocol.schema import agent as pb

MAX_DEBUG_BYTES = 1024
"""The longest ``Request.debug`` text sent with a decision, in UTF-8 bytes."""

_UINT32_MAX = 0xFFFFFFFF
_ONE_BYTE = tuple(bytes((value,)) for value in range(0x80))
"""Single bytes by value (the fields' keys)."""


def action_id_of(answer: object) -> int:
    """The int an answer of ``act`` stands for; a TypeError for a bool or a non-integer."""
    action_id = operator.index(answer)  # type: ignore[arg-type]
    if isinstance(answer, bool):
        raise TypeError("a bool is not an action id")
    return action_id


def debug_bytes(debug: object) -> bytes:
    """``str(debug)`` in UTF-8, cut to ``MAX_DEBUG_BYTES`` without splitting a character."""
    data = str(debug).encode()
    if len(data) <= MAX_DEBUG_BYTES:
        return data
    return data[:MAX_DEBUG_BYTES].decode(errors="ignore").encode()


def _check_action_id(action_id: int) -> None:
    """Raise protobuf's own ValueError when ``action_id`` does not fit a uint32."""
    if not 0 <= action_id <= _UINT32_MAX:
        pb.Decision(action_id=action_id)
        raise ValueError(f"Value out of range: {action_id}")  # pragma: no cover


def decision_bytes(request_id: int, action_id: int, debug: bytes = b"") -> bytes:
    """The bytes of ``PlayResponse(decision=Decision(request_id, action_id, debug))``.

    ``debug`` is the text's UTF-8; an action id that is no uint32 raises protobuf's ValueError.
    """
    if 0 < request_id < 0x80 and 0 < action_id < 0x80 and not debug:
        return bytes((DECISION_KEY, 4, REQUEST_ID_KEY, request_id, ACTION_ID_KEY, action_id))
    _check_action_id(action_id)
    body = _ONE_BYTE[REQUEST_ID_KEY] + varint(request_id) if request_id else b""
    if action_id:
        body += _ONE_BYTE[ACTION_ID_KEY] + varint(action_id)
    if debug:
        body += _ONE_BYTE[DEBUG_KEY] + varint(len(debug)) + debug
    return _ONE_BYTE[DECISION_KEY] + varint(len(body)) + body


def serialize_response(response: bytes | pb.PlayResponse) -> bytes:
    """A response's bytes: ``decision_bytes`` as given, a PlayResponse serialized."""
    return response if isinstance(response, bytes) else response.SerializeToString()
