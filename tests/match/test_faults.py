"""Judging answers: each fault kind, and the reason codes of forfeits."""

from __future__ import annotations

import pytest

from arena.agents import Reply
from arena.match import RecordError
from arena.match.faults import (
    Fault,
    FaultKind,
    judge,
    reason_code,
    strike_reason,
)
from arena.reasons import Reason

LEGAL = {3, 8, 11}


def test_a_legal_answer_gives_its_engine_action() -> None:
    verdict = judge(Reply(request_id=5, action_id=8), 5, LEGAL)
    assert verdict.action == 7
    assert verdict.kind is None


@pytest.mark.parametrize(("reply", "kind", "detail"), [
    (Reply(5, 9), FaultKind.ILLEGAL, "action id 9 is not legal; legal ids: 3, 8, 11"),
    (Reply(5, 0), FaultKind.UNSET, "action id 0 (unset) is never an action"),
    (Reply(4, 8), FaultKind.STALE, "answered request 4 while request 5 was asked"),
    (Reply(0, 0, malformed="an empty PlayResponse where a Decision was due"),
     FaultKind.MALFORMED, "an empty PlayResponse where a Decision was due"),
])
def test_each_fault_is_named(reply: Reply, kind: FaultKind, detail: str) -> None:
    verdict = judge(reply, 5, LEGAL)
    assert verdict.action is None
    assert verdict.kind == kind
    assert verdict.detail == detail


def test_long_legal_lists_are_shortened() -> None:
    verdict = judge(Reply(1, 99), 1, set(range(1, 41)))
    assert verdict.detail.endswith("11, 12, ... (40 in all)")


def test_forfeits_by_strikes_are_timeout_or_invalid() -> None:
    assert strike_reason(FaultKind.TIMEOUT) == Reason.TIMEOUT
    for kind in (FaultKind.ILLEGAL, FaultKind.UNSET, FaultKind.STALE, FaultKind.MALFORMED):
        assert strike_reason(kind) == Reason.INVALID


def test_reason_names_round_trip() -> None:
    for reason in Reason:
        assert reason_code(reason.name) is reason
        assert str(reason) == reason.name
    assert Reason.INIT_ERROR.name == "INIT_ERROR"
    with pytest.raises(RecordError, match="unknown reason code 'LOST'; valid: OK, TIMEOUT"):
        reason_code("LOST")
    with pytest.raises(RecordError, match="unknown reason code 'UNSPECIFIED'"):
        reason_code("UNSPECIFIED")


def test_faults_round_trip_through_json() -> None:
    fault = Fault(1, FaultKind.TIMEOUT, "no answer", decision=4, strike=2, action=17)
    assert Fault.from_dict(fault.to_dict()) == fault
    start = Fault(0, FaultKind.INIT_ERROR, "exited")
    assert Fault.from_dict(start.to_dict()) == start
    with pytest.raises(RecordError, match="unknown fault kind 'late'"):
        Fault.from_dict({**fault.to_dict(), "kind": "late"})
    with pytest.raises(RecordError, match="fault 'seat' must be a non-negative integer"):
        Fault.from_dict({**fault.to_dict(), "seat": -1})
