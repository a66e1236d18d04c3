"""Protobuf wire-format primitives: varints, zigzag, keys and length-delimited fields.

Serialized fields of a message can be concatenated and still parse to the same message; the
encoder builds requests from cached byte strings this way. Each helper leaves a field out at
its proto3 default, as protobuf's own serializer does, so the bytes match it exactly.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Final

from arena.protocol.base128 import encode as _varint
from arena.protocol.errors import ProtocolError

VARINT: Final = 0
LENGTH: Final = 2

_TABLE_SIZE: Final = 1 << 14
_UINT64: Final = (1 << 64) - 1
_INT64_MIN: Final = -(1 << 63)
_SINT32_MIN: Final = -(1 << 31)
_SINT32_MAX: Final = (1 << 31) - 1


_BYTES: Final = [bytes((value,)) for value in range(256)]
VARINTS: Final[dict[int, bytes]] = dict(enumerate(
    _BYTES[:0x80] + [_BYTES[(value & 0x7F) | 0x80] + _BYTES[value >> 7]
                     for value in range(0x80, _TABLE_SIZE)]))
"""Varints of the small non-negative ints (one byte below 128, two below 16384), for lookups
on hot paths; built from byte strings rather than by ``_varint``, which every process that
speaks the protocol would otherwise pay for at import (a bot's start among them)."""
ZIGZAGS: Final[dict[int, bytes]] = {value: VARINTS[(value << 1) ^ (value >> 31)]
                                    for value in range(-(_TABLE_SIZE >> 1), _TABLE_SIZE >> 1)}
"""Zigzag varints (sint32) of the small ints, for lookups on hot paths."""


def varint(value: int) -> bytes:
    """The varint of an int32/int64/uint64 value (a negative one takes ten bytes)."""
    encoded = VARINTS.get(value)
    if encoded is not None:
        return encoded
    if not _INT64_MIN <= value <= _UINT64:
        raise ProtocolError(f"{value} does not fit a 64-bit protobuf integer")
    return _varint(value & _UINT64)


def zigzag(value: int) -> bytes:
    """The zigzag varint of a sint32 value."""
    encoded = ZIGZAGS.get(value)
    if encoded is not None:
        return encoded
    if not _SINT32_MIN <= value <= _SINT32_MAX:
        raise ProtocolError(f"{value} does not fit a sint32 field")
    return _varint((value << 1) ^ (value >> 31))


def tag(field: int, wire_type: int) -> bytes:
    """The key of a field."""
    return varint((field << 3) | wire_type)


def length_field(key: bytes, body: bytes) -> bytes:
    """A length-delimited field: its key, the body's length and the body."""
    return key + varint(len(body)) + body


def varint_field(key: bytes, value: int) -> bytes:
    """An int32/int64/uint/enum field, left out at 0."""
    return key + varint(value) if value else b""


def zigzag_field(key: bytes, value: int) -> bytes:
    """A sint32 field, left out at 0."""
    return key + zigzag(value) if value else b""


def string_field(key: bytes, text: str) -> bytes:
    """A string field, left out when empty."""
    return length_field(key, text.encode()) if text else b""


def packed_varints(key: bytes, values: Sequence[int]) -> bytes:
    """A packed repeated int32 field, left out when empty."""
    if not values:
        return b""
    try:
        body = b"".join([VARINTS[value] for value in values])
    except KeyError:
        body = b"".join([varint(value) for value in values])
    return key + varint(len(body)) + body


def packed_zigzags(key: bytes, values: Sequence[int]) -> bytes:
    """A packed repeated sint32 field, left out when empty."""
    if not values:
        return b""
    try:
        body = b"".join([ZIGZAGS[value] for value in values])
    except KeyError:
        body = b"".join([zigzag(value) for value in values])
    return key + varint(len(body)) + body


_PACK_DOUBLES: Final = tuple(struct.Struct(f"<{count}d").pack for count in range(16))


def packed_doubles(key: bytes, values: Sequence[float]) -> bytes:
    """A packed repeated double field, left out when empty."""
    count = len(values)
    if not count:
        return b""
    if count < len(_PACK_DOUBLES):
        body = _PACK_DOUBLES[count](*values)
    else:
        body = struct.pack(f"<{count}d", *values)
    return key + varint(8 * count) + body
