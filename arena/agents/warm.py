"""When a worker's pool retires a bot instance it keeps between matches, and what it reads of
one to know.

A pool keeps local processes (``LocalProcessAgent``) and containers (``DockerAgent``) alike:
each says whether it has started and still runs (``started``, ``running``, ``still_running``),
opens a new output window for each match (``begin_window``, ``end_window``: a kept
container's output is read back from Docker's log by time) and reports its memory
(``memory_bytes``). ``PoolLimits`` retires an instance after a number of matches, after a
number of minutes, or when its memory has grown past a bound since its first match; faults
and seen deals are the pool's own rules.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 * 1024

MAX_MATCHES_ENV = "CARDARENA_POOL_MAX_MATCHES"
MAX_MINUTES_ENV = "CARDARENA_POOL_MAX_MINUTES"
MAX_GROWTH_ENV = "CARDARENA_POOL_MAX_GROWTH_MB"


@dataclass(frozen=True)
class PoolLimits:
    """When a pool retires a healthy instance rather than keep it for another match."""

    max_matches: int = 500
    """Matches an instance plays at most (each is one deal it is shown)."""
    max_age_s: float = 30 * 60.0
    """Seconds an instance lives at most, from its start."""
    max_growth_bytes: int = 256 * MIB
    """Memory an instance may gain over what it used after its first match."""

    def __post_init__(self) -> None:
        """Refuse caps that are not positive."""
        if self.max_matches < 1:
            raise ValueError(f"a pool's match cap must be at least 1, got {self.max_matches}")
        if not (self.max_age_s > 0 and math.isfinite(self.max_age_s)):
            raise ValueError(f"a pool's age cap must be a positive number of seconds, "
                             f"got {self.max_age_s}")
        if self.max_growth_bytes < 1:
            raise ValueError(f"a pool's memory growth bound must be positive, "
                             f"got {self.max_growth_bytes} bytes")

    @classmethod
    def from_env(cls) -> PoolLimits:
        """The limits, each taken from its environment variable when set (ValueError names a
        bad one)."""
        default = cls()
        return cls(
            max_matches=int(_env_number(MAX_MATCHES_ENV, default.max_matches, int)),
            max_age_s=_env_number(MAX_MINUTES_ENV, default.max_age_s / 60, float) * 60,
            max_growth_bytes=round(_env_number(MAX_GROWTH_ENV, default.max_growth_bytes / MIB,
                                               float) * MIB))

    def retire_reason(self, matches: int, age_s: float, memory: int | None,
                      baseline: int | None) -> str | None:
        """Why an instance that played ``matches`` matches, lived ``age_s`` s and uses
        ``memory`` bytes (``baseline`` after its first match) is retired; None to keep it."""
        if matches >= self.max_matches:
            return f"played {matches} matches (the cap is {self.max_matches})"
        if age_s >= self.max_age_s:
            return f"ran {age_s / 60:.1f} minutes (the cap is {self.max_age_s / 60:g})"
        if memory is not None and baseline is not None \
                and memory - baseline > self.max_growth_bytes:
            return (f"its memory grew by {(memory - baseline) / MIB:.0f} MiB since its first "
                    f"match (the bound is {self.max_growth_bytes / MIB:g} MiB)")
        return None


def _env_number(name: str, default: float, kind: type[int] | type[float]) -> float:
    """A positive number from the environment, or ``default`` when unset."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number; give a positive "
                         f"{'whole number' if kind is int else 'number'}") from None
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name}={text!r} must be positive")
    return value


def pid_running(pid: int) -> bool:
    """True while the process exists and has not exited: the event loop learns of a bot's
    death only when its child watcher reaps it, which may come after the next match starts."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[:1] not in (["Z"], ["X"])


def process_memory_bytes(pid: int) -> int | None:
    """The resident memory of a process, from ``/proc``, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/statm").read_text(encoding="ascii").split()
    except OSError:
        return None
    return int(fields[1]) * os.sysconf("SC_PAGE_SIZE") if len(fields) > 1 else None
