"""The service's quotas and rate limits: their settings, the ``--limit KEY=VALUE`` option's
reading of them, and the words a refusal uses."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from limits import RateLimitItem

OFF = "off"
"""The value that turns a limit off (``--limit api-calls=off``)."""


class LimitSettingError(ValueError):
    """A ``--limit`` value that cannot be read (its text is the user's one line)."""


@dataclass(frozen=True)
class ServiceLimits:
    """Per-user quotas and rate limits; None turns one off. Rates are ``limits`` strings
    (``5/hour``, ``600 per minute``)."""

    bots: int | None = 10
    """Bots one user may own."""
    uploads_per_day: int | None = 20
    """Uploads (``SubmitBot`` calls, built or refused) one user may make in 24 hours."""
    build_minutes_per_day: float | None = 60.0
    """Minutes of image builds one user's bot versions may have taken in 24 hours."""
    matches_in_flight: int | None = 1000
    """Matches not yet played of the leagues of one user that the service is running."""
    registrations: str | None = "5/hour"
    """Registrations from one peer address."""
    upload_rate: str | None = "2/minute"
    """Uploads one user may start."""
    api_calls: str | None = "600/minute"
    """Calls one user (or, without a known token, one peer address) may make."""

    def __post_init__(self) -> None:
        """Refuse negative counts (rates are read when the service starts)."""
        for key, field in FIELDS.items():
            value = getattr(self, field)
            if value is not None and field not in RATE_FIELDS and value < 0:
                raise LimitSettingError(f"--limit {key}: must be 0 or more, got {value}")

    @classmethod
    def unlimited(cls) -> ServiceLimits:
        """Every limit off."""
        return cls(**{field: None for field in FIELDS.values()})


FIELDS = {
    "bots": "bots",
    "uploads-per-day": "uploads_per_day",
    "build-minutes-per-day": "build_minutes_per_day",
    "matches-in-flight": "matches_in_flight",
    "registrations": "registrations",
    "upload-rate": "upload_rate",
    "api-calls": "api_calls",
}
"""The ``--limit`` keys and the fields they set."""

RATE_FIELDS = frozenset({"registrations", "upload_rate", "api_calls"})
"""The fields that are rates (``N/minute``) rather than counts."""


def rate_item(text: str, key: str) -> RateLimitItem:
    """The ``limits`` item of a rate such as ``5/hour``; ``LimitSettingError`` when unreadable."""
    import limits  # here, so that the command line starts without it

    try:
        item = limits.parse(text)
    except ValueError:
        raise LimitSettingError(f"--limit {key}={text}: not a rate; write it as N/second, "
                                "N/minute, N/hour or N/day (e.g. 5/hour)") from None
    if item.amount < 1:
        raise LimitSettingError(f"--limit {key}={text}: a rate allows at least 1 call")
    return item


def parse_limit_options(values: Iterable[str],
                        base: ServiceLimits | None = None) -> ServiceLimits:
    """The limits of ``--limit KEY=VALUE`` options over ``base`` (the defaults); a value of
    ``off`` turns a limit off. ``LimitSettingError`` names a bad one."""
    changes: dict[str, object] = {}
    for value in values:
        key, sep, text = value.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or key not in FIELDS:
            raise LimitSettingError(f"--limit {value!r}: write KEY=VALUE with KEY one of "
                                    f"{', '.join(FIELDS)}")
        field = FIELDS[key]
        changes[field] = None if text.lower() == OFF else _value(key, field, text)
    return dataclasses.replace(base or ServiceLimits(), **changes)  # type: ignore[arg-type]


def _value(key: str, field: str, text: str) -> object:
    """One limit's value read from its text."""
    if field in RATE_FIELDS:
        rate_item(text, key)
        return text
    try:
        number = float(text) if field == "build_minutes_per_day" else int(text)
    except ValueError:
        raise LimitSettingError(f"--limit {key}={text}: not a number (or {OFF})") from None
    if number < 0:
        raise LimitSettingError(f"--limit {key}={text}: must be 0 or more")
    return number


def describe_limits(settings: ServiceLimits) -> str:
    """The limits in force, as ``--limit`` would set them (``bots=10, api-calls=off, ...``)."""
    parts = []
    for key, field in FIELDS.items():
        value = getattr(settings, field)
        shown = OFF if value is None else f"{value:g}" if isinstance(value, float) else value
        parts.append(f"{key}={shown}")
    return ", ".join(parts)


def per_window(item: RateLimitItem, noun: str) -> str:
    """A rate in words: ``5 registrations an hour``, ``1 upload every 2 minutes``."""
    unit = item.GRANULARITY.name
    count = f"{item.amount} {noun}{'' if item.amount == 1 else 's'}"
    if item.multiples == 1:
        return f"{count} {'an' if unit == 'hour' else 'a'} {unit}"
    return f"{count} every {item.multiples} {unit}s"


def wait_text(seconds: float) -> str:
    """How long to wait, for a person: ``3 h 12 min``, ``42 min``, ``40 s``."""
    seconds = max(1, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes = -(-seconds // 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
