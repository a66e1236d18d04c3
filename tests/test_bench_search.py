"""``arena bench search``: the SDK's ISMCTS and OpenSpiel's on the same positions."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arena.bench.errors import BenchError
from arena.bench.search import GOAL_RATIO, positions, run_search_bench
from arena.cli.main import app
from arena.games import load_game

pytest.importorskip("pyspiel")


def test_positions_are_decisions_with_a_choice_from_seeded_playouts() -> None:
    game = load_game("scopa")
    first = positions(game, 3)
    assert len(first) == 3
    assert all(len(state.legal_actions()) > 1 and not state.is_terminal() for state in first)
    again = positions(game, 3)
    assert [state.history() for state in first] == [state.history() for state in again]


def test_a_report_gives_both_rates_and_their_ratio_per_position() -> None:
    seen: list[str] = []
    report = run_search_bench("briscola", 2, 0.02, seen.append)
    (row,) = report["games"]
    assert (row["game"], row["players"], row["positions"], row["unsampled"]) == (
        "briscola", 2, 2, 0)
    assert row["sdk_per_s"] > 0 and row["openspiel_per_s"] > 0
    assert len(row["ratio_samples"]) == 2 and all(ratio > 0 for ratio in row["ratio_samples"])
    assert row["meets_goal"] == (row["ratio"] >= GOAL_RATIO)
    assert all(iterations >= 1 for iterations in row["sdk_iterations"])
    assert seen and "position 2 of 2" in seen[-1]


def test_a_game_whose_views_cannot_be_sampled_is_reported_not_failed() -> None:
    """Vecchia's in-state chance defeats the sampler after its first draws: those positions
    count as unsampled and the rest are measured."""
    report = run_search_bench("vecchia", 3, 0.01, lambda _: None)
    (row,) = report["games"]
    assert row["positions"] + row["unsampled"] == 3
    assert row["unsampled"] >= 1


def test_bad_input_names_the_problem() -> None:
    with pytest.raises(BenchError, match="unknown game 'no-such-game'"):
        run_search_bench("no-such-game", 1, 0.01, lambda _: None)
    result = CliRunner().invoke(app, ["bench", "search", "--game", "no-such-game"])
    assert result.exit_code == 1
    assert "no-such-game" in result.output


def test_the_command_prints_json() -> None:
    result = CliRunner().invoke(app, ["bench", "search", "--game", "briscola-31",
                                      "--positions", "1", "--seconds", "0.01", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["games"][0]["game"] == "briscola-31"
    assert report["rollouts"] == "random" and report["goal_ratio"] == GOAL_RATIO
