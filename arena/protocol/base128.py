"""Protobuf's base-128 varint of a non-negative int, with nothing built at import: what a bot's
answer writer needs (``arena.protocol.wire`` adds the lookup tables of the arena's hot paths)."""

from __future__ import annotations


def encode(value: int) -> bytes:
    """The base-128 varint of a non-negative int."""
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
