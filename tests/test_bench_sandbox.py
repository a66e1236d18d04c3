"""The sandbox benchmark, run small: report structure and consistent figures (never speed).

It needs a Docker engine and the base image: without an engine it is skipped, except under
CI=true, where it fails.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bench.sandbox import GOAL_COLD_START_S, GOAL_RATIO
from arena.cli import app
from arena.sandbox.errors import DockerUnavailable

BRISCOLA_SET = 80
"""Decisions of a 2-seat briscola duplicate set."""


def require_base_image() -> None:
    """Skip without Docker (fail under CI=true); build the base image when it is missing."""
    from arena.sandbox.engine import docker_client
    from arena.sandbox.images import BASE_IMAGE, build_base

    try:
        client = docker_client()
    except DockerUnavailable as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Docker is required under CI: {error}")
        pytest.skip(str(error))
    from docker.errors import ImageNotFound

    try:
        client.images.get(BASE_IMAGE)
    except ImageNotFound:
        build_base()


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """``arena bench sandbox --json --starts 2 --decisions 80``."""
    require_base_image()
    result = CliRunner().invoke(app, ["bench", "sandbox", "--json", "--starts", "2",
                                      "--decisions", str(BRISCOLA_SET)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_report_has_the_required_keys(report: dict[str, Any]) -> None:
    for key in ("cold_start_p50_s", "p50_us", "process_p50_us", "ratio"):
        assert isinstance(report[key], float)
        assert report[key] > 0


def test_the_figures_are_consistent(report: dict[str, Any]) -> None:
    """Two starts, each slower to its first decision than to listening; p99 >= p50; the
    ratio of the p50s; verdicts from the goals."""
    assert report["starts"] == len(report["cold_start_s"]) == len(report["listening_s"]) == 2
    assert all(first >= listening > 0 for first, listening in
               zip(report["cold_start_s"], report["listening_s"], strict=True))
    assert min(report["cold_start_s"]) <= report["cold_start_p50_s"] <= max(
        report["cold_start_s"])
    assert report["p99_us"] >= report["p50_us"]
    assert report["process_p99_us"] >= report["process_p50_us"]
    assert report["ratio"] == pytest.approx(report["p50_us"] / report["process_p50_us"],
                                            abs=1e-3)
    assert report["meets_cold_start_goal"] == (report["cold_start_p50_s"] <= GOAL_COLD_START_S)
    assert report["meets_ratio_goal"] == (report["ratio"] <= GOAL_RATIO)


def test_both_backends_play_whole_duplicate_sets(report: dict[str, Any]) -> None:
    """One set each after the warm-up: every decision of it is one round trip."""
    assert report["round_trips"] == {"docker": BRISCOLA_SET, "process": BRISCOLA_SET}
    assert len(report["set_medians_us"]["docker"]) == len(
        report["set_medians_us"]["process"]) == 1
    assert report["image"]["image_id"].startswith("sha256:")
    assert (report["game"], report["players"], report["bot"]["name"]) == ("briscola", 2,
                                                                           "random")


def test_bad_options_are_one_line() -> None:
    result = CliRunner().invoke(app, ["bench", "sandbox", "--starts", "0"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: Invalid value: starts must be at least 1, got 0"


def test_the_cold_start_is_given_in_parts_beside_its_floor(report: dict[str, Any]) -> None:
    """The parts of the stamped starts (the bot's own included), the floor of bare runs of
    the same image, and the ratio of the two p50s."""
    parts = report["parts_s"]
    assert list(parts)[:3] == ["arena before create (slot, checks, socket folder)",
                               "docker create", "docker start"]
    assert {"interpreter start (to the first line)", "SDK imports",
            "bot code to listening (server, socket)"} <= set(parts)
    assert parts["docker create"] > 0 and parts["docker start"] > 0
    assert parts["SDK imports"] > 0
    assert len(report["floor_s"]) == report["starts"]
    assert 0 < report["floor_from_start_p50_s"] <= report["floor_p50_s"]
    assert report["floor_ratio"] == pytest.approx(
        report["cold_start_p50_s"] / report["floor_p50_s"], abs=0.01)
    assert report["cold_start_from_start_p50_s"] <= report["cold_start_p50_s"]
    assert report["cold_start_p50_s"] <= report["cold_start_from_launch_p50_s"]
