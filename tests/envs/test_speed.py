"""The bridge speed measure plays the same matches through the engine and the environment."""

from __future__ import annotations

from arena.envs.speed import engine_loop, env_loop, measure


def test_both_loops_play_the_same_matches() -> None:
    """Seeded alike, the two loops make the same number of decisions in each match."""
    engine, environment = engine_loop("tressette", 4, {}), env_loop("tressette", 4, {})
    for seed in range(3):
        assert engine(seed) == environment(seed) > 0


def test_measure_reports_both_rates() -> None:
    """A short measure gives positive rates and their ratio."""
    speed = measure("briscola", 2, seconds=0.05, repeats=1)
    assert speed.engine_per_s > 0 and speed.env_per_s > 0
    assert speed.overhead == speed.engine_per_s / speed.env_per_s
