"""When a pool retires a healthy instance (``PoolLimits``), and how it reads a process's
memory."""

from __future__ import annotations

import os

import pytest

from arena.agents.warm import (
    MAX_GROWTH_ENV,
    MAX_MATCHES_ENV,
    MAX_MINUTES_ENV,
    MIB,
    PoolLimits,
    pid_running,
    process_memory_bytes,
)


def test_an_instance_within_every_cap_is_kept() -> None:
    limits = PoolLimits(max_matches=10, max_age_s=60.0, max_growth_bytes=8 * MIB)
    assert limits.retire_reason(9, 59.0, 100 * MIB, 93 * MIB) is None
    assert limits.retire_reason(3, 1.0, None, None) is None


@pytest.mark.parametrize(("matches", "age_s", "memory", "words"), [
    (10, 1.0, 0, "played 10 matches (the cap is 10)"),
    (1, 60.0, 0, "ran 1.0 minutes (the cap is 1)"),
    (1, 1.0, 9 * MIB + 1, "its memory grew by 9 MiB since its first match (the bound is 8 MiB)"),
])
def test_each_cap_retires_with_its_reason(matches: int, age_s: float, memory: int,
                                          words: str) -> None:
    limits = PoolLimits(max_matches=10, max_age_s=60.0, max_growth_bytes=8 * MIB)
    assert limits.retire_reason(matches, age_s, memory, 0) == words


def test_the_environment_sets_the_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_MATCHES_ENV, "7")
    monkeypatch.setenv(MAX_MINUTES_ENV, "2.5")
    monkeypatch.setenv(MAX_GROWTH_ENV, "64")
    assert PoolLimits.from_env() == PoolLimits(max_matches=7, max_age_s=150.0,
                                               max_growth_bytes=64 * MIB)


@pytest.mark.parametrize(("name", "value", "words"), [
    (MAX_MATCHES_ENV, "many", "is not a number"),
    (MAX_MATCHES_ENV, "2.5", "is not a number"),
    (MAX_MINUTES_ENV, "0", "must be positive"),
    (MAX_GROWTH_ENV, "-1", "must be positive"),
    (MAX_MINUTES_ENV, "inf", "must be positive"),
])
def test_a_bad_value_is_one_line_naming_the_variable(monkeypatch: pytest.MonkeyPatch, name: str,
                                                     value: str, words: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=words) as raised:
        PoolLimits.from_env()
    assert name in str(raised.value) and "\n" not in str(raised.value)


def test_caps_that_are_not_positive_are_refused() -> None:
    with pytest.raises(ValueError, match="match cap"):
        PoolLimits(max_matches=0)
    with pytest.raises(ValueError, match="memory growth"):
        PoolLimits(max_growth_bytes=0)


def test_a_process_memory_and_life_are_read_from_proc() -> None:
    held = b"m" * (32 * MIB)
    assert (process_memory_bytes(os.getpid()) or 0) > 32 * MIB
    assert pid_running(os.getpid())
    del held
    assert process_memory_bytes(2**22 + 1) is None
    assert not pid_running(2**22 + 1)
