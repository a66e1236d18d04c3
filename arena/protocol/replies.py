"""A bot's Decision read straight from its bytes, for the plain shape nearly every answer has.

``decision_fields`` reads a serialized ``PlayResponse`` holding a ``Decision`` only when it is
the plain encoding protobuf writes: the ``decision`` field alone, its fields in order, each at
most once, short minimal varints and an ASCII ``debug``. Anything else gives None, and the
caller parses with protobuf, which then decides what the bytes mean (and what is malformed).
The keys of those fields are here for the writers of decisions too (the SDK).
"""

from __future__ import annotations

from typing import Final

DECISION_KEY: Final = 0x12
"""``PlayResponse.decision``: field 2, length-delimited."""
REQUEST_ID_KEY: Final = 0x08
"""``Decision.request_id``: field 1, varint."""
ACTION_ID_KEY: Final = 0x10
"""``Decision.action_id``: field 2, varint."""
DEBUG_KEY: Final = 0x1A
"""``Decision.debug``: field 3, length-delimited."""
_MAX_SIZE: Final = 2 + 0x7F
"""The longest response read here: a body whose length is a one-byte varint."""
_MAX_VARINT_BYTES: Final = 4
"""Longer varints (values of 2**28 and more) are left to protobuf."""


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """The minimal varint of at most four bytes at ``at`` and the position after it;
    ``(0, -1)`` when there is none."""
    if at < len(data) and data[at] < 0x80:
        return data[at], at + 1
    value = shift = 0
    for index in range(at, min(len(data), at + _MAX_VARINT_BYTES)):
        byte = data[index]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return (value, index + 1) if byte else (0, -1)
        shift += 7
    return 0, -1


def decision_fields(raw: bytes) -> tuple[int, int, str] | None:
    """``(request_id, action_id, debug)`` of a plainly encoded Decision, else None."""
    end = len(raw)
    if end < 2 or end > _MAX_SIZE or raw[0] != DECISION_KEY or raw[1] != end - 2:
        return None
    request_id = action_id = 0
    at = 2
    if at < end and raw[at] == REQUEST_ID_KEY:
        request_id, at = _varint(raw, at + 1)
    if 0 < at < end and raw[at] == ACTION_ID_KEY:
        action_id, at = _varint(raw, at + 1)
    if at == end:
        return request_id, action_id, ""
    if at < 0 or raw[at] != DEBUG_KEY or at + 1 == end or raw[at + 1] != end - at - 2:
        return None
    text = raw[at + 2:]
    return (request_id, action_id, text.decode("ascii")) if text.isascii() else None
