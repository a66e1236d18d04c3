"""Leases: one winner per claim race, expiry and re-claim, completion by the owner only, once."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from threading import Barrier

import pytest
from sqlalchemy import func, select

from arena.store import (
    Match,
    MatchRecordRow,
    MatchStatus,
    SeatResult,
    Store,
    claim_match,
    complete_match,
    expired_leases,
    fail_match,
    renew_lease,
    void_exhausted,
    void_match,
)

from .factory import add_league, outcomes, records
from .racers import claim_in_process

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
RACERS = 6
PROCESS_RACERS = 3


def _at(seconds: float) -> datetime:
    """T0 plus some seconds."""
    return T0 + timedelta(seconds=seconds)


def _match(store: Store, match_id: str) -> Match:
    """The match as the database has it now."""
    with store.session() as session:
        match = session.get(Match, match_id)
        assert match is not None
        return match


def _count(store: Store, table: type[SeatResult | MatchRecordRow], match_id: str) -> int:
    """Rows of a table for one match."""
    with store.session() as session:
        return session.scalar(select(func.count()).select_from(table)
                              .where(table.match_id == match_id)) or 0


def test_a_pending_match_is_claimed_once(store: Store) -> None:
    """The first claim wins and counts an attempt; a second claimer is refused."""
    with store.session() as session:
        match_id = add_league(session).matches[0]
        assert claim_match(session, match_id, "a", lease_s=30, now=T0)
        assert not claim_match(session, match_id, "b", lease_s=30, now=_at(1))
    match = _match(store, match_id)
    assert (match.status, match.lease_owner, match.attempts) == (MatchStatus.LEASED, "a", 1)
    assert match.lease_expires == _at(30)
    assert match.started_at == T0


def test_racing_threads_one_winner_each_match(store: Store) -> None:
    """Claimers on separate connections released together: exactly one wins each match."""
    with store.session() as session:
        match_ids = add_league(session, matches=4).matches
    for match_id in match_ids:
        barrier = Barrier(RACERS)

        def race(owner: str, match_id: str = match_id, barrier: Barrier = barrier) -> bool:
            """Wait for every racer, then claim."""
            with store.session() as session:
                barrier.wait(timeout=60)
                return claim_match(session, match_id, owner, lease_s=60)

        with ThreadPoolExecutor(RACERS) as pool:
            wins = list(pool.map(race, [f"worker-{index}" for index in range(RACERS)]))
        assert wins.count(True) == 1
        match = _match(store, match_id)
        assert match.attempts == 1
        assert match.lease_owner == f"worker-{wins.index(True)}"


def test_racing_processes_one_winner(store_url: str, store: Store) -> None:
    """Claimers in separate processes, each with its own engine: exactly one wins."""
    with store.session() as session:
        match_id = add_league(session).matches[0]
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(PROCESS_RACERS)
    queue = context.Queue()
    racers = [context.Process(target=claim_in_process,
                              args=(store_url, match_id, f"host-{index}", barrier, queue))
              for index in range(PROCESS_RACERS)]
    for racer in racers:
        racer.start()
    try:
        wins = [won for _owner, won in (queue.get(timeout=120) for _ in racers)]
    finally:
        for racer in racers:
            racer.join(timeout=60)
    assert [racer.exitcode for racer in racers] == [0] * PROCESS_RACERS
    assert wins.count(True) == 1
    assert _match(store, match_id).attempts == 1


def test_an_expired_lease_is_claimed_again(store: Store) -> None:
    """Before expiry nobody else gets it; after, the next claimer does, as a new attempt."""
    with store.session() as session:
        match_id = add_league(session).matches[0]
        assert claim_match(session, match_id, "a", lease_s=10, now=T0)
        assert not claim_match(session, match_id, "b", lease_s=10, now=_at(9))
        assert expired_leases(session, now=_at(9)) == []
        assert expired_leases(session, now=_at(11)) == [match_id]
        assert claim_match(session, match_id, "b", lease_s=10, now=_at(11))
    match = _match(store, match_id)
    assert (match.lease_owner, match.attempts, match.status) == ("b", 2, MatchStatus.LEASED)
    assert match.last_error == "the lease of a expired"


def test_renewing_keeps_the_lease(store: Store) -> None:
    """The owner may renew; others may not; a renewed lease is not claimable at the old expiry."""
    with store.session() as session:
        match_id = add_league(session).matches[0]
        assert claim_match(session, match_id, "a", lease_s=10, now=T0)
        assert renew_lease(session, match_id, "a", lease_s=10, now=_at(8))
        assert not renew_lease(session, match_id, "b", lease_s=10, now=_at(8))
        assert not claim_match(session, match_id, "b", lease_s=10, now=_at(12))
        assert claim_match(session, match_id, "b", lease_s=10, now=_at(19))
        assert not renew_lease(session, match_id, "a", lease_s=10, now=_at(20))


def test_only_the_owner_completes_and_only_once(store: Store) -> None:
    """A stranger's completion writes nothing; the owner's writes all; a second is refused."""
    with store.session() as session:
        fixture = add_league(session)
        match_id = fixture.matches[0]
        assert not complete_match(session, match_id, "a", outcomes(fixture), records())
        assert claim_match(session, match_id, "a", lease_s=60)
        assert not complete_match(session, match_id, "b", outcomes(fixture), records())
        assert _count(store, SeatResult, match_id) == 0
        assert complete_match(session, match_id, "a", outcomes(fixture), records())
        assert not complete_match(session, match_id, "a", outcomes(fixture), records())
        assert not claim_match(session, match_id, "c", lease_s=60)
    assert _match(store, match_id).status is MatchStatus.DONE
    assert _count(store, SeatResult, match_id) == 2
    assert _count(store, MatchRecordRow, match_id) == 2


def test_a_worker_whose_lease_was_taken_cannot_complete(store: Store) -> None:
    """The worker that lost its lease to a re-claim is refused; the new owner completes."""
    with store.session() as session:
        fixture = add_league(session)
        match_id = fixture.matches[0]
        assert claim_match(session, match_id, "slow", lease_s=10, now=T0)
        assert claim_match(session, match_id, "fresh", lease_s=10, now=_at(11))
        assert not complete_match(session, match_id, "slow", outcomes(fixture), records())
        assert complete_match(session, match_id, "fresh", outcomes(fixture), records())
    assert _count(store, SeatResult, match_id) == 2


def test_results_that_do_not_fit_the_match_are_refused_whole(store: Store) -> None:
    """A missing seat or a wrong entrant raises, and the match stays leased with nothing written."""
    with store.session() as session:
        fixture = add_league(session)
        match_id = fixture.matches[0]
        assert claim_match(session, match_id, "a", lease_s=60)
        with pytest.raises(ValueError, match=r"seats 0\.\.1"):
            complete_match(session, match_id, "a", outcomes(fixture)[:1], records())
        swapped = [outcome.__class__(**{**outcome.__dict__, "bot_version_id": other})
                   for outcome, other in zip(outcomes(fixture), reversed(fixture.versions),
                                             strict=True)]
        with pytest.raises(ValueError, match="seat 0 is bot version"):
            complete_match(session, match_id, "a", swapped, records())
    assert _match(store, match_id).status is MatchStatus.LEASED
    assert _count(store, SeatResult, match_id) == 0
    assert _count(store, MatchRecordRow, match_id) == 0


def test_expired_attempts_stop_at_the_cap(store: Store) -> None:
    """A match whose workers keep dying is void once it has had its attempts."""
    with store.session() as session:
        match_id = add_league(session).matches[0]
        assert claim_match(session, match_id, "a", lease_s=10, max_attempts=2, now=T0)
        assert claim_match(session, match_id, "b", lease_s=10, max_attempts=2, now=_at(11))
        assert not claim_match(session, match_id, "c", lease_s=10, max_attempts=2, now=_at(22))
    match = _match(store, match_id)
    assert (match.status, match.attempts) == (MatchStatus.VOID, 2)
    assert match.last_error == "gave up after 2 attempts; last error: the lease of b expired"


def test_failed_attempts_go_back_to_pending_then_void(store: Store) -> None:
    """A failure hands the match back; the failure at the cap makes it void."""
    with store.session() as session:
        match_id = add_league(session).matches[0]
        assert claim_match(session, match_id, "a", lease_s=60, max_attempts=2)
        assert fail_match(session, match_id, "b", "not mine", max_attempts=2) is None
        assert fail_match(session, match_id, "a", "bot image vanished",
                          max_attempts=2) is MatchStatus.PENDING
        assert claim_match(session, match_id, "a", lease_s=60, max_attempts=2)
        assert fail_match(session, match_id, "a", "bot image vanished again",
                          max_attempts=2) is MatchStatus.VOID
        assert not claim_match(session, match_id, "a", lease_s=60, max_attempts=2)
    match = _match(store, match_id)
    assert (match.status, match.attempts, match.lease_owner) == (MatchStatus.VOID, 2, None)
    assert match.last_error == "bot image vanished again"


def test_the_sweeper_voids_exhausted_matches(store: Store) -> None:
    """void_exhausted takes expired matches at the cap and leaves the rest."""
    with store.session() as session:
        first, second = add_league(session, matches=2).matches
        assert claim_match(session, first, "a", lease_s=10, max_attempts=1, now=T0)
        assert claim_match(session, second, "a", lease_s=100, max_attempts=1, now=T0)
        assert void_exhausted(session, max_attempts=1, now=_at(5)) == []
        assert void_exhausted(session, max_attempts=1, now=_at(50)) == [first]
        assert expired_leases(session, now=_at(50)) == []
    assert _match(store, first).status is MatchStatus.VOID
    assert _match(store, second).status is MatchStatus.LEASED


def test_a_match_can_be_voided_unless_done(store: Store) -> None:
    """void_match gives up on a pending match, not on a finished one."""
    with store.session() as session:
        fixture = add_league(session, matches=2)
        assert void_match(session, fixture.matches[0], "game removed")
        assert claim_match(session, fixture.matches[1], "a", lease_s=60)
        assert complete_match(session, fixture.matches[1], "a", outcomes(fixture), records())
        assert not void_match(session, fixture.matches[1], "too late")
    assert _match(store, fixture.matches[0]).last_error == "game removed"
    assert _match(store, fixture.matches[1]).status is MatchStatus.DONE
