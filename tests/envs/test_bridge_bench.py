"""``arena bench engine --bridges``: the engine alone and each bridge measured in the same
run, with medians and overhead ratios, as a table or JSON."""

from __future__ import annotations

import json
import statistics

import pytest
from typer.testing import CliRunner

from arena.bench.engine import (
    BRIDGES,
    Runner,
    Sample,
    bridge_configurations,
    bridge_runners,
    interleaved,
    run_bridge_bench,
)
from arena.cli.main import app
from arena.envs.openspiel_speed import bridge_loops


def test_each_runner_plays_the_same_matches() -> None:
    """The engine and both bridges make the same decisions in the same seeded matches."""
    runners = bridge_runners("briscola", 2, bridge_loops)
    samples = [runner(0.0) for runner in runners]
    assert len({sample.decisions for sample in samples}) == 1
    assert all(sample.playouts == 1 and sample.decisions == 40 for sample in samples)


def test_interleaved_measures_every_runner_in_turn() -> None:
    """Each runner gets a sample of several slices; the slices alternate."""
    order: list[int] = []
    runners = bridge_runners("high-card", 2, bridge_loops)

    def watched(index: int) -> Runner:
        """The runner of ``index``, noting each call."""
        def run(seconds: float) -> Sample:
            """Note the call, then run."""
            order.append(index)
            return runners[index](seconds)
        return run

    samples = interleaved([watched(index) for index in range(3)], 0.15)
    assert order == [0, 1, 2] * 3
    assert all(sample.playouts >= 3 for sample in samples)


def test_report_medians_and_overheads() -> None:
    """The report's rates are medians of the rounds and each overhead is the median of the
    rounds' ratios of the engine's rate to the bridge's."""
    report = run_bridge_bench(bridge_loops, "high-card", seconds=0.05, repeats=3)
    assert report["bridges"] == list(BRIDGES)
    [row] = report["results"]
    assert (row["game"], row["players"]) == ("high-card", 2)
    for name in BRIDGES:
        ratios = row[f"{name}_overhead_samples"]
        assert len(ratios) == 3 and all(value > 0 for value in ratios)
        assert row[f"{name}_overhead"] == pytest.approx(statistics.median(ratios), abs=0.01)
        assert row[f"{name}_decisions_per_s"] > 0
    assert row["engine_decisions_per_s"] > 0


def test_configurations_default_to_each_games_default_seats() -> None:
    """Without a game: one row per game id; with one: each of its seat counts."""
    every = bridge_configurations(None)
    assert len({game for game, _ in every}) == len(every)
    assert bridge_configurations("briscola") == [("briscola", 2), ("briscola", 3),
                                                 ("briscola", 4)]


def test_the_command_prints_json_and_a_table() -> None:
    """``--bridges --json`` prints the report; without ``--json`` a table with the overheads."""
    runner = CliRunner()
    args = ["bench", "engine", "--bridges", "--game", "high-card", "--seconds", "0.02",
            "--repeats", "1"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["results"][0]["openspiel_overhead"] > 0
    table = runner.invoke(app, args)
    assert table.exit_code == 0, table.output
    assert "openspiel/s" in table.stdout and "overhead" in table.stdout
