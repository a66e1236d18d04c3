"""How a statistic is written: one formatter for the terminal, Markdown, HTML and the web pages.

Every estimate has two decimals and its sign (``+0.67``, ``-0.50``; a value that rounds to zero
is ``0.00``, never ``-0.00``); an interval follows it in parentheses in the same form
(``+0.67 (+0.12, +1.21)``). A proportion is a percentage with one decimal, its interval too
(``70.0% (39.7%, 89.2%)``). Where a statistic has no interval, because it rests on too few sets
or on values that never vary, the parentheses say ``not enough data`` instead.
"""

from __future__ import annotations

from typing import Protocol

DECIMALS = 2
"""Decimals of an estimate, an interval's bounds, a rating."""

PERCENT_DECIMALS = 1
"""Decimals of a percentage."""

P_DECIMALS = 3
"""Decimals of a p-value; smaller ones are written ``<0.001``."""

NOT_ENOUGH_DATA = "not enough data"
"""What stands in place of an interval or a verdict the data cannot support."""

MISSING = "–"
"""A cell with no value."""


class Bounds(Protocol):
    """Anything with a low and a high bound (a confidence interval)."""

    @property
    def low(self) -> float:
        """The lower bound."""
        ...

    @property
    def high(self) -> float:
        """The upper bound."""
        ...


def fixed(value: float) -> str:
    """A number with two decimals and no sign for positives (a rating: ``25.04``)."""
    text = f"{value:.{DECIMALS}f}"
    return text[1:] if _is_zero(text) and text.startswith("-") else text


def signed(value: float) -> str:
    """A number with two decimals and its sign (``+0.67``, ``-0.50``, ``0.00``)."""
    text = f"{value:+.{DECIMALS}f}"
    return text[1:] if _is_zero(text) else text


def bounds(interval: Bounds | None) -> str:
    """``(low, high)`` with signs, or ``(not enough data)``."""
    if interval is None:
        return f"({NOT_ENOUGH_DATA})"
    return f"({signed(interval.low)}, {signed(interval.high)})"


def estimate(value: float, interval: Bounds | None) -> str:
    """A signed estimate and its interval: ``+0.67 (+0.12, +1.21)``."""
    return f"{signed(value)} {bounds(interval)}"


def percent(value: float) -> str:
    """A proportion as a percentage: ``70.0%``."""
    return f"{100 * value:.{PERCENT_DECIMALS}f}%"


def rate(value: float, interval: Bounds | None) -> str:
    """A proportion and its interval in percent: ``70.0% (39.7%, 89.2%)``."""
    if interval is None:
        return f"{percent(value)} ({NOT_ENOUGH_DATA})"
    return f"{percent(value)} ({percent(interval.low)}, {percent(interval.high)})"


def p_value(value: float | None) -> str:
    """A p-value with three decimals, ``<0.001`` below that, a dash for none."""
    if value is None:
        return MISSING
    smallest = 10.0 ** -P_DECIMALS
    if value < smallest:
        return f"<{smallest:.{P_DECIMALS}f}"
    return f"{value:.{P_DECIMALS}f}"


def verdict(significant: bool, enough_data: bool) -> str:
    """``yes``, ``no``, or ``not enough data`` for a test that could not be made."""
    if not enough_data:
        return NOT_ENOUGH_DATA
    return "yes" if significant else "no"


def _is_zero(text: str) -> bool:
    """True when a formatted number has only zero digits."""
    return not any(character in "123456789" for character in text)
