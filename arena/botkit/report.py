"""The outcome of ``arena bot check``: one line per check, and the report of them all."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.match.safetext import safe_text

PASS, WARN, FAIL, SKIP = "PASS", "WARN", "FAIL", "SKIP"

OUTPUT_LINE_CAP = 200
"""Characters of a bot's last output line quoted in a failure."""


def last_output(text: str) -> str:
    """``; its last output: ...`` with the last non-empty line of a bot's output, or nothing."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[-1]
    if len(line) > OUTPUT_LINE_CAP:
        line = line[:OUTPUT_LINE_CAP - 3] + "..."
    return f"; its last output: {line}"


@dataclass(frozen=True)
class CheckLine:
    """The outcome of one check: PASS, WARN (passed, with something to fix), FAIL or SKIP,
    with a note or the reason."""

    check: str
    status: str
    detail: str = ""
    seconds: float | None = None

    @property
    def failed(self) -> bool:
        """True for a failed check."""
        return self.status == FAIL

    def text(self) -> str:
        """``PASS start-up (0.21 s)`` or ``FAIL legal play tressette: ...``, what it quotes of
        the bot shown escaped."""
        notes = [self.detail] if self.detail and self.status == PASS else []
        if self.seconds is not None:
            notes.append(f"{self.seconds:.2f} s")
        line = f"{self.status} {self.check}"
        if notes:
            line += f" ({'; '.join(notes)})"
        if self.detail and self.status != PASS:
            line += f": {self.detail}"
        return safe_text(" ".join(line.split()))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        seconds = None if self.seconds is None else round(self.seconds, 3)
        return {"check": self.check, "status": self.status, "detail": self.detail,
                "seconds": seconds}


@dataclass
class CheckReport:
    """Every check of one bot."""

    path: str
    name: str = ""
    lines: list[CheckLine] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when no check failed."""
        return not any(line.failed for line in self.lines)

    def summary(self) -> str:
        """One closing line: how many checks passed, and any warned (the bot's name shown
        escaped)."""
        failed = sum(line.failed for line in self.lines)
        warned = sum(line.status == WARN for line in self.lines)
        who = f"bot {safe_text(self.name or self.path)}"
        note = f" ({warned} with a warning)" if warned else ""
        if not failed:
            return f"{who}: all {len(self.lines)} checks passed{note}"
        return f"{who}: {failed} of {len(self.lines)} checks failed{note}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"bot": self.path, "name": self.name, "passed": self.passed,
                "checks": [line.to_dict() for line in self.lines]}
