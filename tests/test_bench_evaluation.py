"""``arena bench evaluation`` on one game: plain and duplicate variances from the same deals,
the deals each needs, the rotations' correlation, and the command's output."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bench.evaluation import (
    DealPair,
    correlation,
    deals_needed,
    run_evaluation_bench,
    why_missed,
)
from arena.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """Briscola: 40 deals of heuristic against random, 2 of the mc bot against heuristic."""
    return run_evaluation_bench("briscola", deals=40, mc_deals=2, mc_budget_ms=5)


def test_both_pairs_are_measured_on_their_deals(report: dict[str, Any]) -> None:
    """One row per pair, each deal played in both seatings."""
    rows = report["rows"]
    assert [(row["game"], row["a"], row["b"]) for row in rows] == [
        ("briscola", "heuristic", "random"), ("briscola", "mc", "heuristic")]
    assert [row["deals"] for row in rows] == [40, 2]
    assert all(row["rotations"] == 2 for row in rows)
    assert rows[0]["left_out"] == 0 and rows[0]["forfeits"] == {}
    assert report["skipped"] == []


def test_figures_follow_from_the_variances(report: dict[str, Any]) -> None:
    """Deals needed are (z sd / mean)^2 for each way; their ratio is the variances' ratio;
    duplicate's games count every rotation."""
    row = report["rows"][0]
    assert row["differs"] and row["mean_difference"] > 0 and row["ci_low"] > 0
    z = 1.959964
    for way in ("plain", "duplicate"):
        assert row[f"deals_{way}"] == pytest.approx(
            (z * math.sqrt(row[f"variance_{way}"]) / row["mean_difference"]) ** 2, rel=1e-5)
    assert row["ratio"] == pytest.approx(row["variance_duplicate"] / row["variance_plain"])
    assert row["deals_duplicate"] / row["deals_plain"] == pytest.approx(row["ratio"])
    assert row["games_duplicate"] == pytest.approx(2 * row["deals_duplicate"])
    assert row["variance_duplicate"] < row["variance_plain"]
    assert row["meets_goal"] is (row["ratio"] <= 0.5)
    assert (row["why"] is None) is row["meets_goal"]


def test_rotations_that_cancel_or_agree() -> None:
    """Rotations that mirror each other correlate at -1 (duplicate removes all the variance);
    rotations that repeat each other at +1 (it removes none)."""
    mirrored = [DealPair((value, -value)) for value in (2.0, -2.0, 2.0, 0.0, -2.0)]
    assert correlation(mirrored) == pytest.approx(-1.0)
    assert all(deal.duplicate == 0 for deal in mirrored)
    repeated = [DealPair((value, value)) for value in (2.0, -2.0, 2.0, 0.0)]
    assert correlation(repeated) == pytest.approx(1.0)
    assert correlation([DealPair((1.0, 1.0)), DealPair((1.0, 1.0))]) is None


def test_deals_needed_and_the_reason_of_a_miss() -> None:
    """A zero mean needs no number; a miss names the correlation and the variance kept."""
    assert deals_needed(1.0, 0.0) is None
    assert deals_needed(1.0, -0.5) == pytest.approx((1.959964 * 2) ** 2, rel=1e-6)
    why = why_missed(2, 0.2, 2.0, 1.0)
    assert "correlation +0.20" in why and "keeps 60% of plain play's variance" in why


def test_command_json_and_table() -> None:
    """The command on one game without mc: JSON figures, then the table with its goal."""
    result = runner.invoke(app, ["bench", "evaluation", "--game", "scopa", "--deals", "12",
                                 "--mc-deals", "0", "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [row["a"] for row in data["rows"]] == ["heuristic"]
    assert {"variance_plain", "variance_duplicate", "deals_plain", "deals_duplicate", "ratio",
            "meets_goal", "why"} <= set(data["rows"][0])
    table = runner.invoke(app, ["bench", "evaluation", "--game", "scopa", "--deals", "12",
                                "--mc-deals", "0"], env={"COLUMNS": "160"})
    assert table.exit_code == 0, table.stderr
    assert "What duplicate buys" in table.stdout
    assert "heuristic-random" in table.stdout


def test_unknown_game_is_one_line() -> None:
    """An unknown game: one error line, exit code 2."""
    result = runner.invoke(app, ["bench", "evaluation", "--game", "nogame"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert len(result.stderr.splitlines()) == 1
