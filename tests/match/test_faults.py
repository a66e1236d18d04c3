"""The fault kinds, the reason codes of forfeits, and faults in records."""

from __future__ import annotations

import pytest

from arena.match import RecordError
from arena.match.faults import (
    Fault,
    FaultKind,
    reason_code,
    strike_reason,
)
from arena.reasons import Reason


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
