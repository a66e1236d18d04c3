"""Encoded fields kept by value, process-wide: most field values recur in every match.

A ``FieldCache`` maps a value (an int, a tuple of ints, a tuple of such tuples) to the bytes
of its field. A hit is a plain dict lookup; a miss encodes the value once. An ``IntsCache``
does the same for tuples of ints, by a key that is one int for the short ones (``keys``).
Floats are never used as keys: ``0.0 == -0.0`` would share one encoding between values whose
bytes differ.
Legal actions are kept by the identity of their (immutable) meaning, with the content as a
second chance, since games hand out the same meaning objects decision after decision.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import fields
from typing import Final, Generic, TypeVar

from arena.games import ActionMeaning
from arena.protocol.keys import ints_key
from arena.protocol.serialize import legal_action_bytes

FIELD_CACHE_LIMIT: Final = 1 << 14
"""Values kept per field; a cache starts over beyond this."""

Value = TypeVar("Value", bound=Hashable)


class FieldCache(Generic[Value]):
    """The encoded field of each value seen, encoded on first use (``cache[value]``)."""

    __slots__ = ("encode", "entries", "limit")

    def __init__(self, encode: Callable[[Value], bytes], limit: int = FIELD_CACHE_LIMIT) -> None:
        """Encode missing values with ``encode``; keep at most ``limit`` of them."""
        self.encode = encode
        self.limit = limit
        self.entries: dict[object, bytes] = {}

    def __len__(self) -> int:
        """How many values are kept."""
        return len(self.entries)

    def __getitem__(self, value: Value) -> bytes:
        """The encoded field of ``value``, kept by the value itself."""
        encoded = self.entries.get(value)
        return self._add(value, value) if encoded is None else encoded

    def _add(self, key: object, value: Value) -> bytes:
        """Encode a value not seen before and keep it under ``key`` (an encoding error leaves
        the cache as it was)."""
        encoded = self.encode(value)
        if len(self.entries) >= self.limit:
            self.entries.clear()
        self.entries[key] = encoded
        return encoded


class IntsCache(FieldCache[tuple[int, ...]]):
    """A field cache of tuples of ints, kept by their ``ints_key`` (one int for short tuples
    of small ints, which hashes and compares faster than the tuple)."""

    __slots__ = ()

    def __getitem__(self, values: tuple[int, ...]) -> bytes:
        """The encoded field of ``values``, kept by their ``ints_key``."""
        key = ints_key(values)
        encoded = self.entries.get(key)
        return self._add(key, values) if encoded is None else encoded


ACTION_CACHE_LIMIT: Final = 1 << 14
"""Legal actions kept per cache (by meaning identity and by content); each starts over
beyond this."""

_by_identity: Final[dict[int, tuple[ActionMeaning, int, bytes]]] = {}
"""``id(meaning)`` -> (the meaning itself, its action, the entry): holding the meaning keeps
its id from being reused while the entry lives."""
_by_content: Final[dict[tuple[int, tuple[object, ...]], bytes]] = {}
_MEANING_FIELDS: Final = tuple(field.name for field in fields(ActionMeaning))


def _content(meaning: ActionMeaning) -> tuple[object, ...]:
    """Every field of a meaning, in order."""
    return tuple(getattr(meaning, name) for name in _MEANING_FIELDS)


def legal_action_entry(action: int, meaning: ActionMeaning) -> bytes:
    """The ``legal_actions`` entry of ``action`` with ``meaning`` (cached)."""
    kept = _by_identity.get(id(meaning))
    if kept is not None and kept[0] is meaning and kept[1] == action:
        return kept[2]
    key = (action, _content(meaning))
    encoded = _by_content.get(key)
    if encoded is None:
        encoded = legal_action_bytes(action + 1, meaning)
        if len(_by_content) >= ACTION_CACHE_LIMIT:
            _by_content.clear()
        _by_content[key] = encoded
    if len(_by_identity) >= ACTION_CACHE_LIMIT:
        _by_identity.clear()
    _by_identity[id(meaning)] = (meaning, action, encoded)
    return encoded


def legal_entries(actions: Sequence[int], meaning_of: Callable[[int], ActionMeaning]) -> bytes:
    """The ``legal_actions`` entries of ``actions``, each meaning from ``meaning_of``."""
    identity = _by_identity
    parts = []
    for action in actions:
        meaning = meaning_of(action)
        kept = identity.get(id(meaning))
        if kept is not None and kept[0] is meaning and kept[1] == action:
            parts.append(kept[2])
        else:
            parts.append(legal_action_entry(action, meaning))
    return b"".join(parts)
