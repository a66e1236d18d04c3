"""A played duplicate set stored through its lease, and its records replayed from the store."""

from __future__ import annotations

import pytest

from arena.agents.seats import PolicySeat
from arena.games import load_game
from arena.match import DuplicateResult, MatchRecord, replay, run_duplicate
from arena.store import Match, Store, claim_match, complete_match
from arena.store.outcomes import deal_records, decision_seats, percentile, seat_outcomes

from .factory import add_league


def _briscola_set(match_id: str, seed: int) -> DuplicateResult:
    """Two random policies, one briscola deal in both rotations."""
    game = load_game("briscola", 2, {})
    return run_duplicate(game, seed, [PolicySeat("random"), PolicySeat("random")],
                         match_id=match_id)


def test_a_played_set_is_stored_and_replays(store: Store) -> None:
    """Outcomes and records of a real set go in through complete_match and replay from the store."""
    with store.session() as session:
        fixture = add_league(session)
        match_id = fixture.matches[0]
        match = session.get(Match, match_id)
        assert match is not None
        result = _briscola_set(match_id, match.seed)
        outcomes = seat_outcomes(result, fixture.versions)
        assert claim_match(session, match_id, "w", lease_s=60)
        assert complete_match(session, match_id, "w", outcomes, deal_records(result))
    with store.session() as session:
        match = session.get(Match, match_id)
        assert match is not None
        assert [row.total_return for row in match.results] == [
            entrant.total for entrant in result.entrants]
        assert sum(row.decisions for row in match.results) == sum(
            len(record.actions) for record in result.records)
        for row, played in zip(match.records, result.records, strict=True):
            stored = MatchRecord.from_dict(row.record)
            assert stored.actions == played.actions
            assert replay(stored).returns() == list(played.returns)


def test_each_decision_belongs_to_its_seat() -> None:
    """Replaying a record gives a seat per action, each seat acting in turn in briscola."""
    record = _briscola_set("seats", 11).records[0]
    seats = decision_seats(record)
    assert len(seats) == len(record.actions)
    assert sorted(set(seats)) == [0, 1]
    assert seats.count(0) == seats.count(1)


def test_a_void_set_has_no_outcomes() -> None:
    """A set with a void deal is refused, so its attempt is handed back instead."""
    result = _briscola_set("void", 4)
    deal = result.deals[0]
    void = DuplicateResult(game=result.game, players=result.players, params=result.params,
                           seed=result.seed, entrants=result.entrants,
                           deals=(deal.__class__(**{**deal.__dict__, "record": None,
                                                    "void": "the arena failed"}),))
    with pytest.raises(ValueError, match="void"):
        seat_outcomes(void, [1, 2])


def test_percentiles_are_nearest_rank() -> None:
    """p50 and p95 of known times."""
    times = list(range(1, 101))
    assert (percentile(times, 50), percentile(times, 95), percentile([7], 95)) == (50, 95, 7)
    assert percentile([], 50) is None
