"""``arena bench rollouts``: ISMCTS with random and heuristic playouts on paired deals."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arena.bench.errors import BenchError
from arena.bench.rollouts import play_deal, run_rollouts_bench
from arena.cli.main import app
from arena.games import load_game


def test_the_baseline_deal_is_the_heuristic_playing_itself() -> None:
    """With no search, a deal is fixed by its seed: the pairs compare like with like."""
    game = load_game("briscola-chiamata")
    first = play_deal(game, 5, 2, None, 0.001)
    assert play_deal(game, 5, 2, None, 0.001) == first


def test_a_report_gives_each_playout_policy_and_their_difference_per_game() -> None:
    seen: list[str] = []
    report = run_rollouts_bench("briscola", 2, 2, 7, seen.append)
    (row,) = report["games"]
    assert (row["game"], row["players"], row["deals"]) == ("briscola", 2, 2)
    for key in ("random_gain", "heuristic_gain", "heuristic_edge"):
        figure = row[key]
        assert figure["low"] <= figure["mean"] <= figure["high"]
    assert row["heuristic_edge"]["mean"] == pytest.approx(
        row["heuristic_gain"]["mean"] - row["random_gain"]["mean"])
    assert seen and "deal 2 of 2" in seen[-1]


def test_bad_input_names_the_problem() -> None:
    with pytest.raises(BenchError, match="unknown game 'no-such-game'"):
        run_rollouts_bench("no-such-game", 2, 1, 1, lambda _: None)
    with pytest.raises(BenchError, match="--deals must be at least 2"):
        run_rollouts_bench("briscola", 1, 1, 1, lambda _: None)
    result = CliRunner().invoke(app, ["bench", "rollouts", "--game", "no-such-game"])
    assert result.exit_code == 1
    assert "no-such-game" in result.output


def test_the_command_prints_json() -> None:
    result = CliRunner().invoke(app, ["bench", "rollouts", "--game", "briscola-31",
                                      "--deals", "2", "--budget-ms", "2", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["games"][0]["game"] == "briscola-31" and report["budget_ms"] == 2
