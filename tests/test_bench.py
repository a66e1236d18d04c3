"""The engine benchmark: report structure, consistent figures and clear errors (never speed)."""

from __future__ import annotations

import importlib.util
import json
import statistics
import sys
from typing import Any

import pytest
import typer

from arena.bench.engine import (
    GOAL_RATIO,
    SLICE_S,
    ArenaRunner,
    OpenSpielRunner,
    Runner,
    Sample,
    configurations,
    load_baseline,
    paired,
    ratio_of,
    run_engine_bench,
)
from arena.bench.engine_floor import DECISIONS, FloorGame
from arena.cli.bench.engine import bench_engine_command
from arena.games import GameError, get_spec, load_game
from arena.games.params import IllegalActionError

openspiel = pytest.mark.skipif(importlib.util.find_spec("pyspiel") is None,
                               reason="open_spiel not installed (pip install -e '.[bench]')")


def _json_report(capsys: pytest.CaptureFixture[str], game: str | None, repeats: int = 2
                 ) -> dict[str, Any]:
    """Run the command with a tiny budget and parse its stdout."""
    bench_engine_command(game, as_json=True, seconds=0.005, repeats=repeats)
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


@openspiel
def test_json_report_structure_and_consistency(capsys: pytest.CaptureFixture[str]) -> None:
    """One game: a row per seat count, positive figures, each round's ratio = its decisions /
    its baseline's, the ratio their median."""
    report = _json_report(capsys, "briscola", repeats=2)
    assert report["goal_ratio"] == GOAL_RATIO
    assert report["repeats"] == 2
    assert report["seconds"] == 0.005
    assert report["clock"] in ("thread CPU time", "wall time")
    baseline = report["baseline"]
    assert baseline["game"] == "oh_hell"
    assert baseline["params"] == {"players": 4, "num_tricks_fixed": 12}
    assert baseline["decisions_per_playout"] == 52.0
    assert len(baseline["decisions_per_s_samples"]) == 2 * len(get_spec("briscola").seats)
    results = report["results"]
    assert [(row["game"], row["players"]) for row in results] == [
        ("briscola", seats) for seats in get_spec("briscola").seats]
    per_playout = {2: 40.0, 3: 39.0, 4: 40.0}
    for row in results:
        for key in ("playouts_per_s", "decisions_per_s", "decisions_per_playout",
                    "baseline_decisions_per_s", "ratio"):
            assert isinstance(row[key], float)
            assert row[key] > 0
        assert row["decisions_per_playout"] == per_playout[row["players"]]
        assert len(row["decisions_per_s_samples"]) == 2
        assert len(row["baseline_decisions_per_s_samples"]) == 2
        assert all(value > 0 for value in row["decisions_per_s_samples"])
        ratios = [game / base for game, base in zip(row["decisions_per_s_samples"],
                                                    row["baseline_decisions_per_s_samples"],
                                                    strict=True)]
        assert row["ratio_samples"] == pytest.approx(ratios, rel=1e-3, abs=1e-3)
        assert row["ratio"] == pytest.approx(statistics.median(ratios), rel=1e-3, abs=1e-3)
        assert row["meets_goal"] == (row["ratio"] >= GOAL_RATIO)
        assert row["playouts_per_s"] == pytest.approx(
            row["decisions_per_s"] / row["decisions_per_playout"], rel=0.5)
    floor = report["api_floor"]
    assert floor["decisions_per_s"] > 0 and floor["ratio"] > 0


@openspiel
def test_medians_of_the_samples(capsys: pytest.CaptureFixture[str]) -> None:
    """With three repeats the reported rates are the middle samples."""
    report = _json_report(capsys, "briscola-31", repeats=3)
    for row in report["results"]:
        assert row["decisions_per_s"] == sorted(row["decisions_per_s_samples"])[1]
        assert row["baseline_decisions_per_s"] == sorted(
            row["baseline_decisions_per_s_samples"])[1]


@openspiel
def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    """The table names the game, each seat count and the baseline."""
    bench_engine_command("briscola", as_json=False, seconds=0.005, repeats=1)
    out = capsys.readouterr().out
    assert "ratio" in out
    assert "oh_hell" in out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith("briscola")]
    assert [row[1] for row in rows] == ["2", "3", "4"]


def test_unknown_game_is_a_game_error() -> None:
    """An unknown --game names the valid games before anything is measured."""
    with pytest.raises(GameError, match=r"unknown game 'no-such-game'; valid games: .*briscola"):
        run_engine_bench("no-such-game", seconds=0.005, repeats=1)
    with pytest.raises(GameError, match="no-such-game"):
        bench_engine_command("no-such-game", as_json=True, seconds=0.005, repeats=1)


def test_missing_openspiel_is_one_error_line(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Without pyspiel the command exits 1 after one line telling how to install it."""
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    with pytest.raises(typer.Exit) as exit_info:
        bench_engine_command("briscola", as_json=True, seconds=0.005, repeats=1)
    assert exit_info.value.exit_code == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1
    assert "pip install -e '.[bench]'" in lines[0]


@pytest.mark.parametrize(("seconds", "repeats"), [(0.0, 1), (-1.0, 1), (0.01, 0)])
def test_bad_budget_is_rejected(seconds: float, repeats: int) -> None:
    """A non-positive time budget or repeat count is a parameter error."""
    with pytest.raises(typer.BadParameter):
        bench_engine_command("briscola", as_json=True, seconds=seconds, repeats=repeats)
    with pytest.raises(ValueError):
        run_engine_bench("briscola", seconds=seconds, repeats=repeats)


def test_configurations() -> None:
    """Every game id with each seat count at default parameters, or one game's."""
    every = configurations(None)
    assert ("briscola", 2) in every and ("briscola-31", 4) in every
    assert len(every) == len(set(every))
    assert configurations("briscola-31") == [("briscola-31", n)
                                             for n in get_spec("briscola-31").seats]


def test_arena_runner_plays_whole_matches_with_increasing_seeds() -> None:
    """A zero budget plays exactly one whole match; the next call starts from the next seed."""
    runner = ArenaRunner(load_game("briscola", 2))
    first = runner(0.0)
    assert (first.playouts, first.decisions) == (1, 40)
    assert runner.next_seed == 1
    runner(0.0)
    assert runner.next_seed == 2


def test_arena_runner_is_deterministic() -> None:
    """The same seed gives the same decision count for the same playouts."""
    counts = []
    for _ in range(2):
        runner = ArenaRunner(load_game("briscola-31", 3), seed=7)
        counts.append([runner(0.0).decisions for _ in range(20)])
    assert counts[0] == counts[1]
    assert len(set(counts[0])) > 1


@openspiel
def test_openspiel_runner_counts_only_decisions() -> None:
    """An oh_hell playout with 4 players and 12 tricks is 4 bids and 48 cards."""
    sample = OpenSpielRunner(load_baseline())(0.0)
    assert (sample.playouts, sample.decisions) == (1, 52)


def test_the_floor_game_goes_through_the_state_api() -> None:
    """Forty decisions a playout, alternating seats; illegal actions raise as in every game."""
    state = FloorGame().new_initial_state(0)
    seats = []
    while not state.is_terminal():
        seats.append(state.current_player())
        assert state.legal_actions() == [0, 1, 2]
        with pytest.raises(IllegalActionError):
            state.apply_action(3)
        state.apply_action(len(seats) % 3)
    assert len(seats) == DECISIONS and seats[:3] == [0, 1, 0]
    assert state.history() == [(i + 1) % 3 for i in range(DECISIONS)]
    assert ArenaRunner(FloorGame())(0.0).decisions == DECISIONS


def test_a_paired_measurement_alternates_slices() -> None:
    """The baseline and the game run in turn, a slice each, until each has had its budget."""
    calls: list[str] = []

    def runner(name: str) -> Runner:
        """A runner that notes each call and reports one playout of ten decisions."""
        def run(seconds: float) -> Sample:
            calls.append(f"{name}:{seconds:.3f}")
            return Sample(1, 10, seconds)
        return run

    base, game = paired(runner("base"), runner("game"), 4 * SLICE_S)
    assert calls == [f"{name}:{SLICE_S:.3f}" for _ in range(4) for name in ("base", "game")]
    assert (base.playouts, base.decisions) == (4, 40)
    assert game.seconds == pytest.approx(4 * SLICE_S)
    assert ratio_of(Sample(1, 10, 1.0), Sample(1, 30, 1.0)) == 3.0
