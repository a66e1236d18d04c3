"""The process-wide caches of encoded fields: bounded, and never confused by equal values."""

from __future__ import annotations

from dataclasses import replace

from arena.games import ActionKind, ActionMeaning
from arena.protocol.fieldcache import FieldCache, IntsCache, legal_action_entry, legal_entries
from arena.protocol.serialize import legal_action_bytes
from arena.protocol.wire import packed_zigzags, tag


def test_a_field_cache_encodes_each_value_once_and_starts_over_when_full() -> None:
    """Values are encoded on first use; past the limit the cache starts over, still right."""
    calls: list[tuple[int, ...]] = []
    key = tag(8, 2)

    def encode(value: tuple[int, ...]) -> bytes:
        """Encode a tuple of ints, noting the call."""
        calls.append(value)
        return packed_zigzags(key, value)

    cache = FieldCache(encode, limit=3)
    assert cache[(1, 2)] == packed_zigzags(key, (1, 2))
    assert cache[(1, 2)] == packed_zigzags(key, (1, 2))
    assert calls == [(1, 2)]
    for value in ((3,), (4,), (5,), (6,)):
        assert cache[value] == packed_zigzags(key, value)
    assert len(cache) <= 3
    assert cache[()] == b""


def test_an_ints_cache_keeps_each_tuple_apart_and_starts_over_when_full() -> None:
    """Short and long tuples, small and large ints: each encoded once, each with its own
    bytes (no two share a key), and past the limit the cache starts over, still right."""
    calls: list[tuple[int, ...]] = []
    key = tag(8, 2)

    def encode(value: tuple[int, ...]) -> bytes:
        """Encode a tuple of ints, noting the call."""
        calls.append(value)
        return packed_zigzags(key, value)

    values = [(), (0,), (0, 0), (1,), (-1,), (126,), (127,), (1000, 2), tuple(range(9)),
              (5, 9, 30), (30, 9, 5)]
    cache = IntsCache(encode, limit=len(values))
    for value in values + values:
        assert cache[value] == packed_zigzags(key, value)
    assert calls == values
    for value in ((3,), (4,), (-7, 200)):
        assert cache[value] == packed_zigzags(key, value)
    assert len(cache.entries) <= len(values)
    assert cache[(0, 0)] == packed_zigzags(key, (0, 0))


def test_legal_entries_follow_the_meaning_not_the_object() -> None:
    """An entry is kept by the meaning object, but a new object, a changed meaning or another
    action with the same object each get their own correct bytes."""
    meaning = ActionMeaning(ActionKind.PLAY, cards=(7,), label="7D")
    twin = ActionMeaning(ActionKind.PLAY, cards=(7,), label="7D")
    changed = replace(meaning, label="seven")
    assert legal_action_entry(7, meaning) == legal_action_bytes(8, meaning)
    assert legal_action_entry(7, twin) == legal_action_bytes(8, meaning)
    assert legal_action_entry(7, changed) == legal_action_bytes(8, changed)
    assert legal_action_entry(9, meaning) == legal_action_bytes(10, meaning)
    assert legal_action_entry(7, meaning) == legal_action_bytes(8, meaning)
    meanings = {1: meaning, 2: meaning, 3: changed}
    assert legal_entries([1, 2, 3], meanings.__getitem__) == b"".join(
        legal_action_bytes(action + 1, meanings[action]) for action in (1, 2, 3))
