"""``arena bench league --docker``: one schedule played by the sample bots as Docker images and
as process folders, on the real Docker engine; the report's rates and their ratio."""

from __future__ import annotations

import io
import json
import statistics
from typing import Any

import pytest
import typer
from rich.console import Console

from arena.bench.docker_league import GOAL_DOCKER_RATIO, run_docker_league_bench
from arena.bench.league import RunFigures
from arena.cli.bench import league as bench
from arena.cli.bench.league import bench_docker_league_command, render_docker_table

pytestmark = pytest.mark.docker

MATCHES = 3
ROUNDS = 2


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """One small run: three duplicate sets per league, one worker, two rounds."""
    return run_docker_league_bench(matches=MATCHES, workers=1, rounds=ROUNDS)


def test_both_leagues_are_measured_and_compared(report: dict[str, Any]) -> None:
    """Each kind's matches per hour is the median over the rounds; the ratio is the median of
    the rounds' own ratios."""
    assert report["docker_matches_per_hour"] > 0 and report["process_matches_per_hour"] > 0
    rounds = report["rounds"]
    assert len(rounds) == ROUNDS
    assert all(one["docker"]["matches"] == one["process"]["matches"] == MATCHES
               for one in rounds)
    assert report["docker_matches_per_hour"] == round(statistics.median(
        one["docker"]["matches_per_hour"] for one in rounds), 1)
    own = [one["docker"]["matches_per_hour"] / one["process"]["matches_per_hour"]
           for one in rounds]
    assert report["docker_ratio"] == pytest.approx(statistics.median(own), abs=1e-3)
    assert report["meets_docker_goal"] == (report["docker_ratio"] >= GOAL_DOCKER_RATIO)


def test_the_table_and_the_json_give_the_figures(report: dict[str, Any],
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    Console(file=out, width=140).print(render_docker_table(report))
    assert "Docker / process" in out.getvalue() and f"≥ {GOAL_DOCKER_RATIO}" in out.getvalue()
    monkeypatch.setattr(bench, "run_docker_league_bench", lambda *args, **kwargs: report)
    bench_docker_league_command(MATCHES, 1, True, ROUNDS)
    printed = json.loads(capsys.readouterr().out)
    keys = ("docker_matches_per_hour", "process_matches_per_hour", "docker_ratio")
    assert {key: printed[key] for key in keys} == {key: report[key] for key in keys}


@pytest.mark.parametrize("options", [(0, 1, 1), (1, 0, 1), (1, 1, 0)])
def test_bad_options_are_refused(options: tuple[int, int, int]) -> None:
    matches, workers, rounds = options
    with pytest.raises(typer.BadParameter):
        bench_docker_league_command(matches, workers, False, rounds)


def test_the_ratio_is_the_median_of_the_rounds() -> None:
    """Rounds of known figures: each kind's median rate, and the median of the rounds'
    ratios (not the ratio of the medians)."""
    from arena.bench.docker_league import docker_report

    def figures(match_s: float) -> RunFigures:
        return RunFigures(matches=4, wall_s=10.0, decisions=80, match_s=match_s, play_s=1.0,
                          decision_share=0.5)

    played = [{"docker": figures(docker), "process": figures(process)}
              for docker, process in ((2.0, 1.0), (1.0, 1.0), (4.0, 2.0))]
    made = docker_report([], 4, 1, played)
    assert made["docker_ratio"] == 0.5
    assert made["docker_matches_per_hour"] == 1800.0
    assert made["process_matches_per_hour"] == 3600.0
    assert made["meets_docker_goal"] is False
