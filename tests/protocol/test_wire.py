"""The wire helpers' lookup tables against the plain encoding they stand in for."""

from __future__ import annotations

from google.protobuf.internal.encoder import _VarintBytes  # type: ignore[attr-defined]

from arena.protocol import wire


def test_the_varint_table_holds_what_the_plain_encoder_and_protobuf_give() -> None:
    """Every entry of the table built from byte strings equals ``_varint``'s loop and
    protobuf's own encoder, and the table ends where two bytes no longer suffice."""
    assert len(wire.VARINTS) == 1 << 14
    for value, encoded in wire.VARINTS.items():
        assert encoded == wire._varint(value) == _VarintBytes(value), value
    assert wire.varint(1 << 14) == _VarintBytes(1 << 14) and len(wire.varint(1 << 14)) == 3


def test_the_zigzag_table_matches_the_plain_sint32_encoding() -> None:
    """Zigzag entries, negative and positive, equal the encoding computed without the table."""
    for value, encoded in wire.ZIGZAGS.items():
        assert encoded == wire._varint((value << 1) ^ (value >> 31)), value
    assert wire.zigzag(-1) == b"\x01" and wire.zigzag(1) == b"\x02"
