"""The clock of a match: a limit per decision plus a time bank, and the start-up deadlines.

A seat may take ``decision_ms`` for each decision for free; time beyond that is drawn from
its bank (``bank_ms`` for the whole deal). An answer that comes later than the decision's
limit plus what is left of the bank is late: a TIMEOUT fault, and the bank is then empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.match.errors import MatchError

DEFAULT_DECISION_MS = 1000
DEFAULT_BANK_MS = 30_000
DEFAULT_STARTUP_MS = 10_000
"""How long a bot process may take to listen on its socket."""
DEFAULT_READY_MS = 5_000
"""How long a bot may take to answer MatchStart with Ready."""


@dataclass(frozen=True)
class TimeControl:
    """Per-decision limit, time bank and start-up deadlines, in milliseconds."""

    decision_ms: int = DEFAULT_DECISION_MS
    bank_ms: int = DEFAULT_BANK_MS
    startup_ms: int = DEFAULT_STARTUP_MS
    ready_ms: int = DEFAULT_READY_MS

    def __post_init__(self) -> None:
        """Reject limits that are not integers or are out of range."""
        for name, low in (("decision_ms", 1), ("bank_ms", 0), ("startup_ms", 1),
                          ("ready_ms", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise MatchError(f"invalid time control: {name} must be an integer of at least "
                                 f"{low} ms, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"decision_ms": self.decision_ms, "bank_ms": self.bank_ms,
                "startup_ms": self.startup_ms, "ready_ms": self.ready_ms}


class SeatClock:
    """One seat's clock in one deal: the per-decision limit and what is left of the bank."""

    __slots__ = ("bank_us", "decision_us")

    def __init__(self, control: TimeControl) -> None:
        """Start with the full bank."""
        self.decision_us = control.decision_ms * 1000
        self.bank_us = control.bank_ms * 1000

    @property
    def bank_ms(self) -> int:
        """What is left of the bank, in whole milliseconds."""
        return self.bank_us // 1000

    def allowance_us(self) -> int:
        """The longest the next decision may take: its limit plus the bank."""
        return self.decision_us + self.bank_us

    def time_left_ms(self) -> tuple[int, int]:
        """The decision's limit and the bank, in milliseconds, as a request tells them."""
        return self.decision_us // 1000, self.bank_ms

    def charge(self, elapsed_us: int) -> bool:
        """Account for a decision that took ``elapsed_us``; False when it was late."""
        over = elapsed_us - self.decision_us
        if over <= 0:
            return True
        if over <= self.bank_us:
            self.bank_us -= over
            return True
        self.bank_us = 0
        return False

    def expire(self) -> None:
        """No answer came in time: the bank is spent."""
        self.bank_us = 0
