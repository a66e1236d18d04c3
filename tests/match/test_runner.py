"""The runner with in-process agents: records, the time bank, each fault, forfeits, duplicates.

Scripted agents and a fake clock make every timing decision exact; no process is started.
"""

from __future__ import annotations

import json

import pytest

from arena.agents import AgentExit, PolicySeat
from arena.games import load_game
from arena.match import MatchError, MatchRecord, play_local, replay
from arena.match.faults import FaultKind
from arena.match.results import DealResult, records_from_dict
from arena.match.runner import run_deal, run_duplicate
from arena.match.timecontrol import TimeControl
from arena.reasons import Reason

from .fakes import FakeClock, FakeSeat, ScriptAgent

BRISCOLA = load_game("briscola")
OK, TIMEOUT, INVALID, CRASH = (Reason.OK, Reason.TIMEOUT,
                               Reason.INVALID, Reason.CRASH)


def deal_with(agent: ScriptAgent, seed: int = 3, strikes: int = 3,
              control: TimeControl | None = None) -> DealResult:
    """One briscola deal: the scripted agent at seat 0, the random policy at seat 1."""
    return run_deal(BRISCOLA, seed, [FakeSeat(agent), PolicySeat("random")], control,
                    strikes=strikes, clock=agent.clock)


def seats_to_act(record: MatchRecord) -> list[int]:
    """The seat that made each decision of a record."""
    state = record.make_game().new_initial_state(record.seed)
    seats = []
    for action in record.actions:
        seats.append(state.current_player())
        state.apply_action(action)
    return seats


# --- records -------------------------------------------------------------------------------


def test_policies_play_as_play_local_does() -> None:
    deal = run_deal(BRISCOLA, 11, [PolicySeat("heuristic"), PolicySeat("random")])
    local = play_local(BRISCOLA, 11, ["heuristic", "random"])
    record = deal.record
    assert record is not None
    assert record.actions == local.actions
    assert record.returns == local.returns == deal.returns
    assert record.policies == ("heuristic", "random")
    assert deal.reasons == (OK, OK)
    assert deal.forfeited == (False, False)
    assert deal.problems() == []
    conduct = record.conduct
    assert conduct is not None
    assert [seat.agent for seat in conduct.seats] == [{"kind": "policy", "name": "heuristic"},
                                                      {"kind": "policy", "name": "random"}]
    assert len(conduct.decision_us) == len(record.actions)
    assert all(isinstance(time, int) and time >= 0 for time in conduct.decision_us)
    assert conduct.time_control == {"decision_ms": 1000, "bank_ms": 30000,
                                    "startup_ms": 10000, "ready_ms": 5000, "strikes": 3}
    assert conduct.faults == ()
    assert MatchRecord.from_json(record.to_json()) == record
    assert replay(record).returns() == list(record.returns)


def test_a_record_keeps_debug_text_capped() -> None:
    agent = ScriptAgent({1: "debug:thinking", 2: "debug:" + "é" * 600})
    record = deal_with(agent).record
    assert record is not None and record.conduct is not None
    first, second = record.conduct.debug
    assert (first.seat, first.text) == (0, "thinking")
    assert len(second.text.encode()) == 1024
    assert second.decision > first.decision


# --- the clock -----------------------------------------------------------------------------


def test_time_beyond_the_limit_is_drawn_from_the_bank() -> None:
    agent = ScriptAgent({1: "slow:1500", 2: "slow:1500", 3: "slow:2500", 4: "slow:900"},
                        remote=True)
    deal = deal_with(agent, control=TimeControl(decision_ms=1000, bank_ms=2000))
    assert agent.time_left[:5] == [(1000, 2000), (1000, 1500), (1000, 1000), (1000, 0),
                                   (1000, 0)]
    assert agent.timeouts[:5] == [3.0, 2.5, 2.0, 1.0, 1.0]
    (fault,) = deal.faults
    assert fault.kind == FaultKind.TIMEOUT
    assert fault.strike == 1
    assert fault.detail == "answered after 2500 ms; 2000 ms were left (decision and bank)"
    assert deal.reasons == (OK, OK)
    record = deal.record
    assert record is not None and record.conduct is not None
    assert record.conduct.seats[0].bank_ms == 0
    assert record.conduct.seats[1].bank_ms == 2000
    assert record.conduct.decision_us[fault.decision or 0] == 2_500_000


def test_no_answer_is_a_timeout_that_spends_the_bank() -> None:
    agent = ScriptAgent({2: "timeout"}, remote=True)
    deal = deal_with(agent, control=TimeControl(decision_ms=200, bank_ms=700))
    (fault,) = deal.faults
    assert fault.kind == FaultKind.TIMEOUT
    assert fault.detail == "no answer within 900 ms (decision and bank)"
    assert agent.time_left[1:3] == [(200, 700), (200, 0)]


# --- faults --------------------------------------------------------------------------------


@pytest.mark.parametrize(("step", "kind"), [
    ("illegal", FaultKind.ILLEGAL), ("unset", FaultKind.UNSET), ("stale", FaultKind.STALE),
    ("malformed", FaultKind.MALFORMED), ("timeout", FaultKind.TIMEOUT),
])
def test_each_fault_substitutes_an_action_and_counts_a_strike(step: str,
                                                              kind: FaultKind) -> None:
    agent = ScriptAgent({2: step})
    deal = deal_with(agent)
    (fault,) = deal.faults
    record = deal.record
    assert record is not None
    assert (fault.seat, fault.kind, fault.strike) == (0, kind, 1)
    assert fault.decision is not None and fault.action == record.actions[fault.decision]
    assert deal.reasons == (OK, OK)
    assert agent.count == 20
    assert replay(record).returns() == list(deal.returns)
    again = deal_with(ScriptAgent({2: step})).record
    assert again is not None and again.actions == record.actions


@pytest.mark.parametrize(("script", "reason"), [
    ({1: "illegal", 2: "unset", 3: "malformed"}, INVALID),
    ({1: "timeout", 4: "stale", 6: "timeout"}, TIMEOUT),
    ({1: "timeout", 2: "timeout", 5: "illegal"}, INVALID),
])
def test_the_third_strike_forfeits(script: dict[int, str], reason: int) -> None:
    agent = ScriptAgent(script)
    deal = deal_with(agent)
    last = max(script)
    assert [fault.strike for fault in deal.faults] == [1, 2, 3]
    assert deal.reasons == (reason, OK)
    assert deal.forfeited == (True, False)
    assert deal.details[0].startswith(f"3 strikes; the last: {script[last]}: ")
    assert agent.count == last
    assert agent.ended == [(reason, OK)]
    record = deal.record
    assert record is not None and record.conduct is not None
    times = record.conduct.decision_us
    movers = seats_to_act(record)
    seat0 = [index for index, seat in enumerate(movers) if seat == 0]
    assert all(times[index] is not None for index in seat0[:last])
    assert all(times[index] is None for index in seat0[last:])
    assert all(times[index] is not None for index, seat in enumerate(movers) if seat == 1)
    assert replay(record).returns() == list(deal.returns)
    assert sum(deal.returns) == 0


def test_the_strike_limit_is_configurable() -> None:
    deal = deal_with(ScriptAgent({3: "illegal"}), strikes=1)
    assert deal.reasons == (INVALID, OK)
    assert deal.details[0] == ("1 strikes; the last: illegal: action id 999 is not legal; "
                               f"legal ids: {deal.faults[0].detail.split('legal ids: ')[1]}")


def test_a_crash_forfeits_at_once_and_the_other_result_stands() -> None:
    agent = ScriptAgent({4: "crash"})
    deal = deal_with(agent)
    (fault,) = deal.faults
    assert (fault.kind, fault.strike, fault.detail) == (FaultKind.CRASH, 0, "scripted crash")
    assert deal.reasons == (CRASH, OK)
    assert deal.details == ("scripted crash", "")
    assert agent.ended == []
    assert deal.problems() == ["seat 0 script: CRASH: scripted crash"]
    record = deal.record
    assert record is not None
    assert replay(record).returns() == list(deal.returns)
    assert record.conduct is not None and record.conduct.seats[0].forfeited


def test_an_arena_failure_voids_the_deal() -> None:
    agent = ScriptAgent({2: "bug"})
    result = run_duplicate(BRISCOLA, 3, [FakeSeat(agent), PolicySeat("random")], rotations=1)
    (deal,) = result.deals
    assert deal.void == "arena failure: KeyError: 'an arena bug'"
    assert deal.reasons == (Reason.VOID_INFRA,) * 2
    assert deal.record is None
    assert agent.ended == [(Reason.VOID_INFRA,) * 2]
    assert result.void
    assert all(entrant.returns == () for entrant in result.entrants)
    assert deal.problems() == ["the deal is void (VOID_INFRA): arena failure: KeyError: "
                               "'an arena bug'"]


# --- duplicate sets ------------------------------------------------------------------------


def test_a_duplicate_set_rotates_the_seats_and_pairs_results() -> None:
    game = load_game("briscola", 3)
    agents = [ScriptAgent({1: "illegal"}) for _ in range(3)]
    seats = [FakeSeat(*agents), PolicySeat("heuristic"), PolicySeat("random")]
    result = run_duplicate(game, 8, seats, match_id="set-1")
    assert [deal.entrants for deal in result.deals] == [(0, 1, 2), (2, 0, 1), (1, 2, 0)]
    assert [[setup.seat for setup in agent.opened] for agent in agents] == [[0], [1], [2]]
    assert [[setup.match_id for setup in agent.opened] for agent in agents] == [
        ["set-1-0"], ["set-1-1"], ["set-1-2"]]
    assert {setup.seed for agent in agents for setup in agent.opened} == {8}
    for index, entrant in enumerate(result.entrants):
        assert entrant.seats == tuple((index + rotation) % 3 for rotation in range(3))
        expected = [deal.returns[deal.entrants.index(index)] for deal in result.deals]
        assert list(entrant.returns) == expected
        assert entrant.total == pytest.approx(sum(expected))
        assert entrant.mean == pytest.approx(sum(expected) / 3)
    assert [entrant.label for entrant in result.entrants] == ["script", "heuristic", "random"]
    assert [len(deal.faults) for deal in result.deals] == [1, 1, 1]
    records = records_from_dict(json.loads(result.to_json()))
    assert records == list(result.records)
    for deal, record in zip(result.deals, records, strict=True):
        assert record.policies == tuple(deal.labels)
        assert replay(record).returns() == list(deal.returns)


def test_each_rotation_gets_an_agent_of_its_own() -> None:
    agents = [ScriptAgent() for _ in range(2)]
    seat = FakeSeat(*agents)
    result = run_duplicate(BRISCOLA, 4, [seat, PolicySeat("random")])
    assert seat.made == 2
    assert [len(agent.opened) for agent in agents] == [1, 1]
    assert [agent.ended for agent in agents] == [[(Reason.OK,) * 2]] * 2
    assert result.entrants[0].exits == (AgentExit(), AgentExit())


def test_a_seat_that_makes_one_agent_for_two_rotations_is_refused_before_anything_starts(
        ) -> None:
    agent = ScriptAgent()
    with pytest.raises(MatchError, match="made one agent for two rotations or seats"):
        run_duplicate(BRISCOLA, 4, [FakeSeat(agent), PolicySeat("random")])
    assert agent.opened == []


def test_a_policy_duplicate_set_is_balanced_by_construction() -> None:
    result = run_duplicate(BRISCOLA, 5, [PolicySeat("random"), PolicySeat("random")])
    assert result.entrants[0].returns == tuple(reversed(result.entrants[1].returns))
    assert result.entrants[0].total == 0


# --- bad input -----------------------------------------------------------------------------


def test_bad_runs_are_named() -> None:
    seats = [PolicySeat("random"), PolicySeat("random")]
    with pytest.raises(MatchError, match="3 players given for the 2 seats of briscola"):
        run_duplicate(BRISCOLA, 1, [*seats, PolicySeat("random")])
    with pytest.raises(MatchError, match=r"rotations must be 1\.\.2 for 2 seats, got 3"):
        run_duplicate(BRISCOLA, 1, seats, rotations=3)
    with pytest.raises(MatchError, match="strikes must be a positive integer, got 0"):
        run_duplicate(BRISCOLA, 1, seats, strikes=0)
    with pytest.raises(MatchError, match="invalid seed -1"):
        run_duplicate(BRISCOLA, -1, seats)


def test_fake_clock_only_moves_when_told() -> None:
    clock = FakeClock()
    clock.advance_ms(1.5)
    assert clock() == 1_500_000


def test_reference_policies_are_timed_but_not_held_to_the_clock() -> None:
    ticks = iter(range(0, 10**15, 5 * 10**9))
    deal = run_deal(BRISCOLA, 4, [PolicySeat("heuristic"), PolicySeat("random")],
                    TimeControl(decision_ms=1, bank_ms=0), clock=lambda: next(ticks))
    assert deal.faults == ()
    assert deal.reasons == (OK, OK)
    assert deal.record is not None and deal.record.conduct is not None
    assert set(deal.record.conduct.decision_us) == {5_000_000}
