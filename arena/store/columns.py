"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime, Dialect
from sqlalchemy.types import TypeDecorator

_TWO_64 = 1 << 64
_TWO_63 = 1 << 63


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp (SQLite keeps it as naive UTC text, which sorts)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        """Refuse naive times; store UTC (naive on SQLite, so comparisons stay textual)."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"a naive datetime cannot be stored: {value!r}")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Give back an aware UTC time."""
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Uint64(TypeDecorator[int]):
    """An unsigned 64-bit integer (a deal seed), kept in a signed BIGINT as two's complement."""

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> Any:
        """Map 0..2**64-1 onto the signed range."""
        if value is None:
            return None
        if not 0 <= value < _TWO_64:
            raise ValueError(f"not an unsigned 64-bit integer: {value}")
        return value - _TWO_64 if value >= _TWO_63 else value

    def process_result_value(self, value: int | None, dialect: Dialect) -> int | None:
        """Map the signed value back."""
        if value is None:
            return None
        return value + _TWO_64 if value < 0 else value
