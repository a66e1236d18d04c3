"""The league benchmark: report structure and consistent figures from one tiny run (never speed)."""

from __future__ import annotations

import io
import json
import math
import os
import statistics
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console

from arena.bench.league import (
    GOAL_CELERY_OVERHEAD,
    GOAL_RATIO,
    dispatch_gap,
    measure_celery,
    run_league_bench,
    time_per_match,
)
from arena.cli.bench import league as bench
from arena.cli.bench.league import bench_league_command, render_table

MATCHES = 4
"""Two matches per worker, so the steady-state time per match leaves a first match out."""

SET_DECISIONS = 80
"""Decisions of a 2-seat briscola duplicate set (two deals of 40)."""

ROUNDS = 2
"""Two rounds, so that the report's medians are taken over more than one."""

UNREACHABLE_BROKER = "redis://127.0.0.1:1/0"
"""A broker URL nothing listens on."""


def under_ci() -> bool:
    """True when the tests run under CI, where redis-server and Celery are required."""
    return os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """One tiny run: a short ceiling, then the league in the local pool and through Celery."""
    return run_league_bench(matches=MATCHES, workers=2, ceiling_s=0.2, rounds=ROUNDS)


def positive(value: Any) -> bool:
    """A finite number above zero."""
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_report_has_the_required_keys_and_sane_figures(report: dict[str, Any]) -> None:
    """Positive finite rates, the ratio of the two rates, every decision of the league counted."""
    for key in ("decisions_per_s", "ceiling_decisions_per_s", "ratio", "matches_per_hour"):
        assert positive(report[key]), key
    assert "celery_overhead_fraction" in report
    assert report["ratio"] == pytest.approx(
        report["decisions_per_s"] / report["ceiling_decisions_per_s"], abs=1e-3)
    assert report["meets_ratio_goal"] == (report["ratio"] >= GOAL_RATIO)
    assert report["wall_ratio"] == pytest.approx(
        report["wall_decisions_per_s"] / report["ceiling_decisions_per_s"], abs=1e-3)
    local = report["local"]
    assert local["wall_decisions_per_s"] == pytest.approx(
        local["decisions"] / local["wall_s"], rel=1e-2)
    # the workers that claimed matches: both as a rule, one when the other started too late
    # (it imports and sets up while the first plays the few short matches)
    assert 1 <= local["lanes"] <= 2
    assert local["decisions_per_s"] == pytest.approx(
        local["decisions"] / local["matches"] * local["lanes"] / local["match_s"], rel=1e-2)
    assert 0 <= report["startup_s"] < local["wall_s"]
    assert (local["matches"], local["decisions"]) == (MATCHES, MATCHES * SET_DECISIONS)
    for key in ("wall_s", "match_s", "play_s", "decisions_per_s"):
        assert positive(local[key]), key
    assert 0 < local["decision_share"] < 1
    assert report["ceiling"]["matches"] == 2
    assert [bot["name"] for bot in report["bots"]] == ["random", "heuristic"]


def test_celery_overhead_is_measured_or_explained(report: dict[str, Any]) -> None:
    """A finite overhead from a Celery run of the whole league, or null with the reason."""
    overhead = report["celery_overhead_fraction"]
    if overhead is None:
        assert not under_ci(), report["celery_note"]
        assert report["celery_note"] and report["celery"] is None
        assert report["meets_celery_goal"] is None
        return
    assert math.isfinite(overhead) and overhead > -1
    assert report["celery_note"] is None
    celery = report["celery"]
    assert (celery["matches"], celery["decisions"]) == (MATCHES, MATCHES * SET_DECISIONS)
    assert positive(celery["match_s"])
    per_round = [one["celery_overhead_fraction"] for one in report["rounds"]]
    assert len(per_round) == ROUNDS and all(math.isfinite(value) for value in per_round)
    assert overhead == pytest.approx(statistics.median(per_round), abs=1e-3)
    assert report["meets_celery_goal"] == (overhead < GOAL_CELERY_OVERHEAD)


def test_the_report_is_the_round_with_the_median_ratio(report: dict[str, Any]) -> None:
    """Every round is listed; the headline ratio is the lower middle one of the rounds."""
    ratios = sorted(one["ratio"] for one in report["rounds"])
    assert len(ratios) == ROUNDS
    assert report["ratio"] == ratios[(ROUNDS - 1) // 2]


def test_table_shows_the_figures_and_the_goals(report: dict[str, Any]) -> None:
    """The table names the ratio, the Celery overhead and both goals."""
    out = io.StringIO()
    Console(file=out, width=140).print(render_table(report))
    text = out.getvalue()
    assert "league / ceiling" in text
    assert f"≥ {GOAL_RATIO}" in text
    assert "Celery overhead per match" in text


def test_json_output_is_the_report(report: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``--json`` prints the report as JSON on stdout."""
    monkeypatch.setattr(bench, "run_league_bench", lambda *args, **kwargs: report)
    bench_league_command(matches=MATCHES, as_json=True)
    printed = json.loads(capsys.readouterr().out)
    assert {key: printed[key] for key in ("decisions_per_s", "ceiling_decisions_per_s", "ratio",
                                          "celery_overhead_fraction")} == {
        key: report[key] for key in ("decisions_per_s", "ceiling_decisions_per_s", "ratio",
                                     "celery_overhead_fraction")}


def test_an_unreachable_broker_gives_null_and_one_line(tmp_path: Path) -> None:
    """No Celery figure, and one line saying why, when the broker cannot be reached."""
    figures, note = measure_celery(f"sqlite:///{tmp_path / 'none.db'}", "none", 1,
                                   UNREACHABLE_BROKER, tmp_path, lambda text: None)
    assert figures is None
    assert note and "\n" not in note


@pytest.mark.parametrize("options", [{"matches": 0}, {"workers": 0}, {"ceiling_s": -1.0},
                                     {"rounds": 0}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    """Out-of-range options are a bad parameter, before anything runs."""
    with pytest.raises(typer.BadParameter):
        bench_league_command(**options)


def test_time_per_match_leaves_each_workers_first_match_out() -> None:
    """Warm spans per match after the first; whole spans when no worker played two."""
    workers = [[(0.0, 3.0), (3.1, 4.1), (4.2, 5.0)], [(0.0, 2.0), (2.1, 3.0)]]
    assert time_per_match(workers) == pytest.approx((2.0 + 1.0) / 3)
    assert time_per_match([[(0.0, 2.0)], [(1.0, 2.0)]]) == pytest.approx(1.5)


def test_dispatch_gap_is_the_median_wait_between_a_workers_matches() -> None:
    """Gaps from each match's end to the same worker's next start, in start order; none: 0."""
    workers = [[(3.1, 4.1), (0.0, 3.0), (4.4, 5.0)], [(0.0, 2.0), (2.2, 3.0)]]
    assert dispatch_gap(workers) == pytest.approx(0.2)
    assert dispatch_gap([[(0.0, 2.0)], [(1.0, 2.0)]]) == 0.0


def test_celery_overhead_compares_the_dispatch_gaps(report: dict[str, Any]) -> None:
    """Each round's overhead is the Celery gap minus the pool's, per median local match."""
    if report["celery"] is None:
        assert not under_ci(), report["celery_note"]
        return
    local, celery = report["local"], report["celery"]
    assert local["dispatch_s"] >= 0 and celery["dispatch_s"] >= 0
    assert positive(local["duration_s"]) and positive(celery["duration_s"])
    shown = next(one for one in report["rounds"] if one["ratio"] == report["ratio"])
    assert shown["celery_overhead_fraction"] == pytest.approx(
        (celery["dispatch_s"] - local["dispatch_s"]) / local["duration_s"], abs=0.01)
    whole = [one["celery_time_per_match_fraction"] for one in report["rounds"]]
    assert report["celery_time_per_match_fraction"] == pytest.approx(statistics.median(whole),
                                                                     abs=1e-3)
