"""A claimer run in its own process, for the cross-process lease race."""

from __future__ import annotations

from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier

from arena.store import claim_match, open_store


def claim_in_process(url: str, match_id: str, owner: str, barrier: Barrier,
                     wins: Queue[tuple[str, bool]]) -> None:
    """Open the store, wait for the other racers, claim the match; report whether it won."""
    with open_store(url) as store, store.session() as session:
        barrier.wait(timeout=60)
        wins.put((owner, claim_match(session, match_id, owner, lease_s=60)))
