"""Measurements for flood tests: this process's peak memory (the audit's own measure), and a
seat's decision times."""

from __future__ import annotations

import statistics

from arena.audit.measure import MIB, peak_rss
from arena.games import Game
from arena.match.record import MatchRecord

__all__ = ["MIB", "p50_p99", "peak_rss", "seat_times_us"]


def seat_times_us(record: MatchRecord, game: Game, seed: int, seat: int) -> list[int]:
    """The recorded times of one seat's decisions (microseconds)."""
    assert record.conduct is not None
    state = game.new_initial_state(seed)
    times = []
    for action, time_us in zip(record.actions, record.conduct.decision_us, strict=True):
        if state.current_player() == seat and time_us is not None:
            times.append(time_us)
        state.apply_action(action)
    return times


def p50_p99(values: list[int]) -> tuple[float, float]:
    """The median and the 99th percentile."""
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), float(p99)
