"""The clock: a free limit per decision, a bank for the excess, and late answers."""

from __future__ import annotations

import pytest

from arena.match import MatchError
from arena.match.timecontrol import SeatClock, TimeControl


def test_defaults_are_one_second_and_thirty_in_the_bank() -> None:
    control = TimeControl()
    assert (control.decision_ms, control.bank_ms) == (1000, 30_000)
    clock = SeatClock(control)
    assert clock.time_left_ms() == (1000, 30_000)
    assert clock.allowance_us() == 31_000_000


def test_time_within_the_limit_is_free() -> None:
    clock = SeatClock(TimeControl(decision_ms=100, bank_ms=500))
    assert clock.charge(100_000)
    assert clock.bank_ms == 500


def test_time_beyond_the_limit_comes_from_the_bank() -> None:
    clock = SeatClock(TimeControl(decision_ms=100, bank_ms=500))
    assert clock.charge(350_000)
    assert clock.bank_us == 250_000
    assert clock.time_left_ms() == (100, 250)
    assert clock.allowance_us() == 350_000
    assert clock.charge(350_000)
    assert clock.bank_us == 0


def test_beyond_limit_and_bank_is_late_and_empties_the_bank() -> None:
    clock = SeatClock(TimeControl(decision_ms=100, bank_ms=500))
    assert not clock.charge(600_001)
    assert clock.bank_us == 0
    assert clock.charge(100_000)
    assert not clock.charge(100_001)


def test_no_answer_spends_the_bank() -> None:
    clock = SeatClock(TimeControl(decision_ms=100, bank_ms=500))
    clock.expire()
    assert clock.allowance_us() == 100_000


@pytest.mark.parametrize(("field", "value"), [
    ("decision_ms", 0), ("bank_ms", -1), ("startup_ms", 0), ("ready_ms", 0),
    ("decision_ms", 1.5), ("bank_ms", True),
])
def test_bad_limits_are_named(field: str, value: object) -> None:
    with pytest.raises(MatchError, match=f"invalid time control: {field} must be an integer"):
        TimeControl(**{field: value})  # type: ignore[arg-type]
