"""Figures read from the store when Prometheus scrapes: queue depth, leases, matches by status.

The store is the record of truth for what waits and what runs, whichever executor plays the
matches (the local pool or Celery workers on other hosts), so these are not counted by any
process but read at scrape time, by one query each, over every league.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import func, select

from arena.store import MatchStatus, Store
from arena.store.models import Match, utc_now


class StoreGauges:
    """A Prometheus collector of the store's figures (register it on a registry)."""

    def __init__(self, store: Store) -> None:
        """Read from ``store``."""
        self.store = store

    def describe(self) -> list[Any]:
        """Nothing: the registry need not collect at registration."""
        return []

    def collect(self) -> Iterator[Any]:
        """The matches by status, the queue depth (pending) and the expired leases."""
        from prometheus_client.core import GaugeMetricFamily

        by_status, expired = self.read()
        statuses = GaugeMetricFamily("arena_matches_by_status",
                                     "League matches in the store, by status", labels=["status"])
        for status in MatchStatus:
            statuses.add_metric([status.value], by_status.get(status.value, 0))
        yield statuses
        yield GaugeMetricFamily("arena_queue_depth", "League matches pending (waiting to be "
                                "played), over every league",
                                value=by_status.get(MatchStatus.PENDING.value, 0))
        yield GaugeMetricFamily("arena_leases_expired", "Leased matches whose lease has run "
                                "out (their worker died; a run's sweeper hands them out "
                                "again)", value=expired)

    def read(self) -> tuple[dict[str, int], int]:
        """(matches by status value, leased matches with an expired lease)."""
        with self.store.session() as session:
            rows = session.execute(select(Match.status, func.count()).group_by(Match.status))
            by_status = {MatchStatus(status).value: count for status, count in rows}
            expired = session.scalar(select(func.count()).where(
                Match.status == MatchStatus.LEASED, Match.lease_expires < utc_now())) or 0
        return by_status, int(expired)
