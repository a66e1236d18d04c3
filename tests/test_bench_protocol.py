"""The protocol benchmark: report structure and consistent figures (never speed)."""

from __future__ import annotations

import asyncio
import io
import json
import statistics
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console

from arena.bench.errors import BenchError
from arena.bench.launched import launched_bots
from arena.bench.overhead import measure_overhead, random_script
from arena.bench.protocol import (
    ARENA_SIDE_SETS,
    GOAL_ARENA_US,
    GOAL_RATIO,
    SAMPLE_RANDOM,
    run_protocol_bench,
    temp_root,
)
from arena.bench.stats import percentile
from arena.bots import BotConfigError, BotManifest
from arena.cli.bench.output import print_report
from arena.cli.bench.protocol import bench_protocol_command, render_table
from arena.games import load_game
from arena.protocol.v1 import agent_pb2 as pb

BRISCOLA_DECISIONS = 40
"""Decisions of a 2-seat briscola deal."""


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """One small run: a round, then one set per lane with 1 and 2 matches at once, then one
    deal per match of the clock under load with 2 matches at once."""
    return run_protocol_bench("briscola", 2, SAMPLE_RANDOM, rounds=1, concurrency=(1, 2),
                              throughput_s=0.0, clock_matches=2)


def test_report_has_the_required_keys_and_consistent_figures(report: dict[str, Any]) -> None:
    """Positive round trips, p99 >= p50, the ratio of the p50s, verdicts from the goals."""
    for key in ("p50_us", "raw_p50_us", "ratio", "arena_us_per_decision", "p99_us",
                "raw_p99_us", "bot_p50_us", "bot_p99_us"):
        assert isinstance(report[key], float)
        assert report[key] > 0
    assert report["p99_us"] >= report["p50_us"]
    assert report["raw_p99_us"] >= report["raw_p50_us"]
    assert report["bot_p99_us"] >= report["bot_p50_us"]
    assert report["ratio"] == pytest.approx(report["p50_us"] / report["raw_p50_us"], abs=1e-3)
    assert report["bot_share_us"] == pytest.approx(report["bot_p50_us"] - report["raw_p50_us"])
    assert report["arena_share_us"] == pytest.approx(report["p50_us"] - report["bot_p50_us"])
    assert report["meets_ratio_goal"] == (report["ratio"] <= GOAL_RATIO)
    assert report["meets_arena_goal"] == (report["arena_us_per_decision"] <= GOAL_ARENA_US)
    assert (report["game"], report["players"], report["rounds"]) == ("briscola", 2, 1)
    assert report["bot"]["name"] == "random"


def test_every_decision_of_a_round_is_one_round_trip_of_each_kind(
        report: dict[str, Any]) -> None:
    """A round is a duplicate set (2 deals of 40 decisions): 80 round trips of each kind."""
    assert report["round_trips"] == {"arena": 2 * BRISCOLA_DECISIONS,
                                     "raw": 2 * BRISCOLA_DECISIONS,
                                     "bot": 2 * BRISCOLA_DECISIONS}
    medians = report["round_medians_us"]
    assert len(medians["arena"]) == len(medians["raw"]) == len(medians["bot"]) == 1
    assert len(medians["arena_side"]) == ARENA_SIDE_SETS
    assert report["arena_us_per_decision"] == pytest.approx(
        statistics.median(medians["arena_side"]), abs=0.01)
    assert 0 < report["request_bytes"]["mean"] <= report["request_bytes"]["max"]


def test_decisions_per_second_for_each_number_of_matches(report: dict[str, Any]) -> None:
    """One row per number of matches at once; whole duplicate sets, rates from their sums."""
    rows = report["throughput"]
    assert [row["matches"] for row in rows] == [1, 2]
    assert set(report["decisions_per_s"]) == {"1", "2"}
    for row in rows:
        assert row["decisions"] % (2 * BRISCOLA_DECISIONS) == 0
        assert row["decisions"] >= row["matches"] * 2 * BRISCOLA_DECISIONS
        assert row["decisions_per_s"] == pytest.approx(row["decisions"] / row["seconds"],
                                                       rel=1e-2)
        assert report["decisions_per_s"][str(row["matches"])] == row["decisions_per_s"]
        assert row["p99_us"] >= row["p50_us"] > 0
        assert row["charged_p99_us"] >= row["charged_p50_us"] >= 0
        assert row["arena_cpu_us_per_decision"] > 0
        # seats x rotations per lane, the lanes sharing them (the sample's matches_at_once)
        assert row["bot_processes"] == 2 * 2
        # /proc counts CPU in clock ticks (10 ms): a short run of the random bot can use
        # less than one tick, so only the sign is certain
        assert row["bots_cpu_us_per_decision"] >= 0


def test_the_charged_time_is_shown_beside_the_round_trip(report: dict[str, Any]) -> None:
    """The clock never charges more than the runner waited: charged p50 and p99 at most the
    round trip's; under load, one deal per match of 5-seat briscola chiamata."""
    assert 0 <= report["charged_p50_us"] <= report["p50_us"]
    assert report["charged_p99_us"] <= report["p99_us"]
    clock = report["clock"]
    assert (clock["game"], clock["players"], clock["matches"]) == ("briscola-chiamata", 5, 2)
    assert clock["bot_processes"] == 2 * 5  # each match on processes of its own
    assert clock["decisions"] >= 2 * 40
    assert 0 <= clock["charged_p50_us"] <= clock["p50_us"]
    assert clock["charged_p99_us"] <= clock["p99_us"]
    assert clock["meets_charged_goal"] == (clock["charged_p99_us"]
                                           <= clock["goal_charged_p99_us"])


def test_table_and_json_output(report: dict[str, Any],
                               capsys: pytest.CaptureFixture[str]) -> None:
    """The table shows the figures with their goals; the JSON is the report."""
    console = Console(record=True, width=120, file=io.StringIO())
    console.print(render_table(report))
    text = console.export_text()
    for phrase in ("arena / raw", "raw gRPC", "bot alone", "arena-side work",
                   "2 matches at once", f"≤ {GOAL_RATIO}", f"{report['ratio']:.2f}",
                   "charged to the bot p50 / p99", "2 matches of briscola-chiamata"):
        assert phrase in text
    print_report(report, True, render_table(report))
    assert json.loads(capsys.readouterr().out) == report


def test_scripted_run_logs_each_deals_messages_in_the_order_of_play() -> None:
    """The arena-side run plays the script; each deal logs every entrant's MatchStart, then
    each request with the entrant it went to (rotated one seat per deal), in the order of
    play."""
    game = load_game("briscola", 2)
    script = random_script(game, 3)
    sample = asyncio.run(measure_overhead(game, 3))
    assert sample.decisions == 2 * len(script) == 2 * BRISCOLA_DECISIONS
    assert sample.us_per_decision > 0
    assert len(sample.deals) == 2
    for rotation, deal in enumerate(sample.deals):
        assert sorted(deal.starts) == [0, 1]
        assert all(pb.PlayRequest.FromString(start).WhichOneof("message") == "match_start"
                   for start in deal.starts.values())
        state = game.new_initial_state(3)
        for (entrant, payload), action in zip(deal.turns, script, strict=True):
            request = pb.PlayRequest.FromString(payload)
            assert request.WhichOneof("message") == "decision_request"
            seat = state.current_player()
            assert request.decision_request.observation.seat == seat
            assert entrant == (seat - rotation) % 2
            state.apply_action(action)
    assert len(sample.request_sizes) == sample.decisions


def test_launched_bots_are_stopped_and_their_folders_removed() -> None:
    """Leaving the context stops every bot process and removes its folder."""
    async def launch() -> list[Any]:
        """Start two random bots and leave at once."""
        with temp_root() as root:
            manifest = BotManifest.load(SAMPLE_RANDOM)
            async with launched_bots(manifest, root, 2, 30.0) as seats:
                assert len({seat.address for seat in seats}) == 2
                return [seat.bot for seat in seats]

    bots = asyncio.run(launch())
    for bot in bots:
        assert bot.process is not None and bot.process.returncode is not None
        assert bot.workdir is not None and not Path(bot.workdir).exists()


def test_a_bot_that_does_not_start_is_a_bench_error(tmp_path: Path) -> None:
    """A bot exiting before it listens stops the benchmark with one clear error."""
    folder = tmp_path / "quits"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "quits"\nversion = "1"\nlanguage = "python"\n'
        'command = ["python", "-c", "print(\'no socket today\'); raise SystemExit(3)"]\n',
        encoding="utf-8")

    async def launch() -> None:
        """Try to start the bot."""
        with temp_root() as root:
            async with launched_bots(BotManifest.load(folder), root, 1, 30.0):
                pass

    with pytest.raises(BenchError, match=r"the bot quits .*did not start: the bot exited "
                                         r"with status 3.*no socket today"):
        asyncio.run(launch())


def test_bad_input_is_rejected_before_anything_runs(tmp_path: Path) -> None:
    """A missing bot folder, or rounds and matches out of range."""
    with pytest.raises(BotConfigError, match="no such file or directory"):
        run_protocol_bench("briscola", 2, tmp_path / "missing", rounds=1)
    with pytest.raises(typer.BadParameter, match="rounds must be at least 1"):
        bench_protocol_command(rounds=0)
    with pytest.raises(typer.BadParameter, match="must be positive"):
        bench_protocol_command(concurrency=(1, 0))
    with pytest.raises(ValueError, match="must not be negative"):
        run_protocol_bench(throughput_s=-1.0)
    with pytest.raises(typer.BadParameter, match="clock matches must not be negative"):
        bench_protocol_command(clock_matches=-1)


def test_percentile_interpolates_between_ranks() -> None:
    """Median of an even count is the mean of the middle pair; p0 and p100 are the ends."""
    values = [4.0, 1.0, 3.0, 2.0]
    assert percentile(values, 50) == 2.5
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 4.0
    assert percentile(values, 99) == pytest.approx(3.97)
    with pytest.raises(ValueError):
        percentile([], 50)
