"""The arena's Prometheus metrics, in one place that any layer may import.

The metric objects are made on first use, not at import: ``prometheus_client`` picks its
multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``) when the first metric is made, and the
service and ``arena worker`` set that folder up at start-up, before any event is counted. A
process spawned by them (a pool worker, a Celery worker process) inherits the folder and
writes its counts there, and the endpoint adds every process's counts up. Without
``prometheus_client`` installed every count is a no-op.

Counts are made where events end, never per decision: a match's decisions are added once,
when the match ends (``count_match``).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

BUILD_BUCKETS_S = (1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
"""The buckets of the build-time histogram, in seconds (a cached build takes about a second,
a cold one minutes)."""


class _Nothing:
    """A stand-in metric when ``prometheus_client`` is not installed: every call does nothing."""

    def labels(self, *args: Any, **kwargs: Any) -> _Nothing:
        """Itself."""
        return self

    def inc(self, amount: float = 1) -> None:
        """Nothing."""

    def observe(self, amount: float) -> None:
        """Nothing."""


@dataclass(frozen=True)
class Instruments:
    """The arena's metrics (names as exposed, without the ``_total`` of counters)."""

    matches: Any
    decisions: Any
    faults: Any
    strikes: Any
    lease_expiries: Any
    container_starts: Any
    build_seconds: Any


_MAKING = threading.Lock()
"""Held while the metrics are made: two threads counting their first event at once (two
containers of a match starting) must not both register them, which the registry refuses."""


def instruments() -> Instruments:
    """The metrics of this process, made once, on first use, by one thread."""
    with _MAKING:
        return _made()


@functools.cache
def _made() -> Instruments:
    """The metrics, made (see the module's docstring); called under ``_MAKING`` only."""
    try:
        from prometheus_client import Counter, Histogram
    except ImportError:
        nothing = _Nothing()
        return Instruments(*([nothing] * 7))
    return Instruments(
        matches=Counter("arena_matches", "League matches that ended, by game and result "
                        "(done, void, pending: handed back for another attempt, lost)",
                        ["game", "result"]),
        decisions=Counter("arena_decisions", "Decisions played in league matches that ended, "
                          "by game (counted when the match ends)", ["game"]),
        faults=Counter("arena_faults", "Seats that did not end a deal OK, by reason code "
                       "(VOID_INFRA: a void deal)", ["reason"]),
        strikes=Counter("arena_strikes", "Faults of bots' answers that counted a strike, by "
                        "kind (timeout, illegal, unset, stale, malformed)", ["kind"]),
        lease_expiries=Counter("arena_lease_expiries", "Expired match leases found and "
                               "handed out again by a league run"),
        container_starts=Counter("arena_container_starts", "Bot containers started, by "
                                 "result (ok, failed)", ["result"]),
        build_seconds=Histogram("arena_build_seconds", "Docker builds of bot images, by "
                                "result (ok, failed)", ["result"], buckets=BUILD_BUCKETS_S),
    )


def count_match(game: str, result: str, decisions: int = 0,
                faults: Mapping[str, int] | None = None,
                strikes: Mapping[str, int] | None = None) -> None:
    """Count one league match that ended: its decisions, faults and strikes, then the match
    itself (so a scrape that sees the match counted sees the rest of it too)."""
    metrics = instruments()
    if decisions:
        metrics.decisions.labels(game=game).inc(decisions)
    for reason, count in (faults or {}).items():
        metrics.faults.labels(reason=reason).inc(count)
    for kind, count in (strikes or {}).items():
        metrics.strikes.labels(kind=kind).inc(count)
    metrics.matches.labels(game=game, result=result).inc()


def count_lease_expiries(count: int) -> None:
    """Count expired leases a run found (and handed out again)."""
    if count > 0:
        instruments().lease_expiries.inc(count)


def count_container_start(ok: bool) -> None:
    """Count one attempt to start a bot's container."""
    instruments().container_starts.labels(result="ok" if ok else "failed").inc()


def observe_build(seconds: float, ok: bool) -> None:
    """Record how long a Docker build of a bot image took."""
    instruments().build_seconds.labels(result="ok" if ok else "failed").observe(seconds)
