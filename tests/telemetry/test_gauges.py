"""The store's figures at scrape time (``StoreGauges``): the queue depth follows the pending
matches, leased and expired leases are seen, over a real SQLite store."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from prometheus_client import CollectorRegistry

from arena.league.create import create_league
from arena.league.gauges import StoreGauges
from arena.league.status import find_league
from arena.store import Store, claim_match, open_store
from arena.store.matches import pending_ids
from arena.store.models import utc_now


def figures(registry: CollectorRegistry) -> tuple[float | None, float | None, float | None]:
    """(queue depth, leased matches, expired leases) as a scrape would show them."""
    return (registry.get_sample_value("arena_queue_depth"),
            registry.get_sample_value("arena_matches_by_status", {"status": "leased"}),
            registry.get_sample_value("arena_leases_expired"))


def league(store: Store, name: str) -> list[str]:
    """A league of three matches between the reference policies; its match ids."""
    create_league(store, name, ["random", "heuristic"], ["briscola"], deals=3)
    with store.session() as session:
        return pending_ids(session, find_league(session, name).id)


def test_queue_depth_follows_the_pending_matches(tmp_path: Path) -> None:
    """Empty, then three pending, then one claimed (leased), then its lease expired."""
    with open_store(f"sqlite:///{tmp_path / 'arena.db'}") as store:
        registry = CollectorRegistry()
        registry.register(StoreGauges(store))
        assert figures(registry) == (0, 0, 0)
        ids = league(store, "first")
        assert figures(registry) == (3, 0, 0)
        league(store, "second")
        assert figures(registry) == (6, 0, 0)
        with store.session() as session:
            assert claim_match(session, ids[0], "worker-1", lease_s=60)
        assert figures(registry) == (5, 1, 0)
        with store.session() as session:
            assert claim_match(session, ids[1], "worker-2", lease_s=1,
                               now=utc_now() - timedelta(seconds=30))
        assert figures(registry) == (4, 2, 1)
