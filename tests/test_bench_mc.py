"""The mc benchmark: paired differences, their interval and the bot's times (never speed)."""

from __future__ import annotations

import io
import json
import statistics
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console
from scipy import stats
from typer.testing import CliRunner

from arena.bench.mc import (
    SAMPLE_MC,
    decision_seats,
    run_mc_bench,
)
from arena.bench.protocol import SAMPLE_RANDOM
from arena.bench.stats import mean_interval
from arena.bots import BotConfigError
from arena.cli import app
from arena.cli.bench.mc import bench_mc_command, render_table
from arena.cli.bench.output import print_report
from arena.games import load_game
from arena.match import MatchRecord

DECISIONS_PER_SEAT = 20
"""Decisions of each seat in a 2-seat briscola deal."""


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """Two duplicate deals with the random sample bot standing in for mc."""
    return run_mc_bench(2, SAMPLE_RANDOM)


def test_report_structure_and_paired_figures(report: dict[str, Any]) -> None:
    """Two deals: their differences, mean, t interval, and wins/ties/losses by sign."""
    assert (report["game"], report["players"], report["opponent"]) == ("briscola", 2,
                                                                       "heuristic")
    assert report["bot"]["name"] == "random"
    assert (report["deals"], report["seeds"], report["level"]) == (2, [0, 1], 0.95)
    differences = report["differences"]
    assert len(differences) == 2
    assert report["mean"] == pytest.approx(statistics.fmean(differences), abs=1e-4)
    assert report["sd"] == pytest.approx(statistics.stdev(differences), abs=1e-4)
    assert report["se"] == pytest.approx(report["sd"] / 2 ** 0.5, abs=1e-4)
    half = 12.7062047 * report["se"]
    assert report["ci_low"] == pytest.approx(report["mean"] - half, abs=1e-3)
    assert report["ci_high"] == pytest.approx(report["mean"] + half, abs=1e-3)
    assert report["ci_low"] <= report["mean"] <= report["ci_high"]
    assert report["meets_goal"] == (report["ci_low"] > 0)
    assert report["wins"] == sum(value > 0 for value in differences)
    assert report["ties"] == sum(value == 0 for value in differences)
    assert report["wins"] + report["ties"] + report["losses"] == 2


def test_bot_decision_times_come_from_its_own_decisions(report: dict[str, Any]) -> None:
    """Every decision of the bot's seat, in both orders of both deals, and nothing else."""
    assert report["bot_decisions"] == 2 * 2 * DECISIONS_PER_SEAT
    times = report["decision_ms"]
    assert 0 <= times["p50"] <= times["p99"] <= times["max"] and times["max"] > 0
    assert 0 < times["mean"] <= times["max"]
    assert report["faults"] == {}
    assert report["forfeits"] == 0
    assert report["seconds"] > 0


def test_table_and_json_output(report: dict[str, Any],
                               capsys: pytest.CaptureFixture[str]) -> None:
    """The table shows the interval against its goal; the JSON is the report."""
    console = Console(record=True, width=120, file=io.StringIO())
    console.print(render_table(report))
    text = console.export_text()
    for phrase in ("95% confidence interval", "above zero", "won / tied / lost",
                   f"{report['mean']:+.3f}", "random against heuristic"):
        assert phrase in text
    print_report(report, True, render_table(report))
    assert json.loads(capsys.readouterr().out) == report


def test_the_heuristic_as_a_bot_ties_the_heuristic_policy_on_every_deal() -> None:
    """The same deterministic player in both entrants: each pair of orders cancels exactly."""
    report = run_mc_bench(2, SAMPLE_RANDOM.parent / "heuristic")
    assert report["differences"] == [0.0, 0.0]
    assert (report["wins"], report["ties"], report["losses"]) == (0, 2, 0)
    assert (report["mean"], report["ci_low"], report["ci_high"]) == (0.0, 0.0, 0.0)
    assert not report["meets_goal"]


def test_decision_seats_follow_the_engine() -> None:
    """The seat of each decision is the engine's current player when it was made."""
    game = load_game("briscola", 2)
    state = game.new_initial_state(5)
    expected = []
    while not state.is_terminal():
        expected.append(state.current_player())
        state.apply_action(state.legal_actions()[-1])
    record = MatchRecord.from_state(state, ["a", "b"])
    assert decision_seats(game, record) == expected
    assert expected.count(0) == expected.count(1) == DECISIONS_PER_SEAT


def test_bad_input(tmp_path: Path) -> None:
    """No deals, a missing folder, a bot without briscola: errors before anything runs."""
    with pytest.raises(ValueError, match="deals must be at least 1"):
        run_mc_bench(0, SAMPLE_RANDOM)
    with pytest.raises(typer.BadParameter):
        bench_mc_command(0, SAMPLE_RANDOM)
    with pytest.raises(BotConfigError, match="no such file or directory"):
        run_mc_bench(1, tmp_path / "missing")
    folder = tmp_path / "scopa-only"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "s"\nversion = "1"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\ngames = ["scopa"]\n',
                                     encoding="utf-8")
    with pytest.raises(BotConfigError, match="briscola"):
        run_mc_bench(1, folder)


def test_command_line_rejects_bad_input() -> None:
    """``arena bench mc`` with no deals, or a missing bot, exits 2 with one error line."""
    runner = CliRunner()
    result = runner.invoke(app, ["bench", "mc", "--deals", "0"])
    assert result.exit_code == 2
    assert "must be at least 1" in result.output
    result = runner.invoke(app, ["bench", "mc", "--deals", "1", "--bot", "/no/such/bot"])
    assert result.exit_code == 2
    assert "no such file or directory" in result.output


@pytest.mark.skipif(not SAMPLE_MC.exists(), reason="the mc sample bot is not in this checkout")
def test_mc_sample_bot_plays_a_deal_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real mc bot (with a small search budget) plays one duplicate deal without a
    fault, as a process."""
    monkeypatch.setenv("MC_BUDGET_MS", "10")
    report = run_mc_bench(1, SAMPLE_MC)
    assert report["bot"]["name"] == "mc"
    assert report["bot_decisions"] == 2 * DECISIONS_PER_SEAT
    assert (report["faults"], report["forfeits"]) == ({}, 0)
    assert report["ci_low"] is None


def test_mean_interval() -> None:
    """Mean, sample deviation, standard error and the t interval around the mean (the
    97.5% t quantile with 4 degrees of freedom is 2.7764451 in the tables)."""
    values = [1.0, 2.0, 3.0, 4.0, -1.0]
    interval = mean_interval(values)
    assert interval.mean == pytest.approx(1.8)
    assert interval.sd == pytest.approx(statistics.stdev(values))
    assert interval.se == pytest.approx(statistics.stdev(values) / 5 ** 0.5)
    assert interval.low == pytest.approx(1.8 - 2.7764451 * interval.se)
    assert interval.high == pytest.approx(1.8 + 2.7764451 * interval.se)
    scipy_low, scipy_high = stats.ttest_1samp(values, 0.0).confidence_interval(0.95)
    assert (interval.low, interval.high) == pytest.approx((scipy_low, scipy_high))
    assert not interval.excludes_zero
    assert mean_interval([2.0, 2.5, 3.0]).excludes_zero
    single = mean_interval([2.0])
    assert (single.low, single.high, single.excludes_zero) == (None, None, False)
