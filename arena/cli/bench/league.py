"""``arena bench league``: a league of process bots against the gRPC ceiling, and Celery's
cost, as a table; with ``--docker``, the league with Docker bots against process bots."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from arena.bench.docker_league import run_docker_league_bench
from arena.bench.errors import BenchError
from arena.bench.league import (
    DEFAULT_CEILING_S,
    DEFAULT_MATCHES,
    DEFAULT_ROUNDS,
    DEFAULT_WORKERS,
    check_options,
    run_league_bench,
)
from arena.bench.stats import goal_mark
from arena.bots import BotConfigError
from arena.cli.bench.output import fail, print_report, report_table, status


def render_table(report: dict[str, Any]) -> Table:
    """The report as a rich table: figure, value, goal and verdict."""
    bots = " vs ".join(bot["name"] for bot in report["bots"])
    ceiling = report["ceiling"]
    table = report_table(
        title=f"League: {bots}, {report['game']} with {report['players']} seats, "
              f"{report['matches']} duplicate sets, {report['workers']} workers",
        caption=(f"ceiling: {ceiling['matches']} sets at once with bots started beforehand, "
                 f"{ceiling['decisions']} decisions in {ceiling['seconds']:.1f} s; a league "
                 f"worker starts its bots once and keeps them\nrates per match: from the "
                 f"stored timestamps, each worker's first match left out (what a long league "
                 f"runs at); start-up: the rest of the wall time\nthe figures of the round "
                 f"with the median ratio, of {len(report['rounds'])} rounds\n"
                 f"Python {report['python']}"))
    table.add_column("figure", no_wrap=True)
    table.add_column("value", justify="right")
    table.add_column("goal")
    table.add_column("", justify="center")
    local, celery = report["local"], report["celery"]
    table.add_row("local pool: matches per hour", f"{local['matches_per_hour']:,.0f}", "", "")
    table.add_row("local pool: decisions/s", f"{local['decisions_per_s']:,.1f}", "", "")
    table.add_row("ceiling: decisions/s", f"{report['ceiling_decisions_per_s']:,.1f}", "", "")
    table.add_row("league / ceiling", f"{report['ratio']:.3f}", f"≥ {report['goal_ratio']}",
                  goal_mark(report["meets_ratio_goal"]))
    table.add_row("local pool: wall time (start-up)",
                  f"{local['wall_s']:.2f} s ({report['startup_s']:.2f} s)", "", "")
    table.add_row("  decisions/s over the wall time", f"{report['wall_decisions_per_s']:,.1f}",
                  "", "")
    table.add_row("  wall / ceiling", f"{report['wall_ratio']:.3f}", "", "")
    table.add_row("local pool: time per match", f"{local['match_s']:.3f} s", "", "")
    table.add_row("  bots' decision time, share of a match", f"{local['decision_share']:.0%}",
                  "", "")
    if celery is None:
        table.add_row("Celery: time per match", "not measured", "", "")
    else:
        table.add_row("Celery: wall time", f"{celery['wall_s']:.2f} s", "", "")
        table.add_row("Celery: time per match", f"{celery['match_s']:.3f} s", "", "")
        table.add_row("gap between matches, local pool / Celery",
                      f"{local['dispatch_s'] * 1e3:.1f} ms / {celery['dispatch_s'] * 1e3:.1f} ms",
                      "", "")
    overhead = report["celery_overhead_fraction"]
    table.add_row("Celery overhead per match (dispatch, median)",
                  "–" if overhead is None else f"{overhead:+.1%}",
                  f"< {report['goal_celery_overhead']:.0%}", goal_mark(report["meets_celery_goal"]))
    whole = report["celery_time_per_match_fraction"]
    table.add_row("  Celery's whole time per match over the pool's (median)",
                  "–" if whole is None else f"{whole:+.1%}", "", "")
    table.add_row("rounds: ratio, Celery overhead", "; ".join(
        f"{one['ratio']:.2f}, " + ("–" if one["celery_overhead_fraction"] is None
                                   else f"{one['celery_overhead_fraction']:+.1%}")
        for one in report["rounds"]), "", "")
    return table


@contextlib.contextmanager
def _quiet_errors() -> Iterator[None]:
    """Turn a bot that cannot be loaded into a ``BenchError``."""
    try:
        yield
    except BotConfigError as error:
        raise BenchError(str(error)) from None


def bench_league_command(matches: int = DEFAULT_MATCHES, workers: int = DEFAULT_WORKERS,
                         broker: str | None = None, ceiling_s: float = DEFAULT_CEILING_S,
                         as_json: bool = False, rounds: int = DEFAULT_ROUNDS) -> None:
    """Run the benchmark and print a table (or JSON on stdout); one error line if it cannot."""
    try:
        check_options(matches, workers, ceiling_s, rounds)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    console = Console(stderr=True)
    try:
        with status(console) as progress, _quiet_errors():
            report = run_league_bench(matches, workers, broker, ceiling_s, progress,
                                      rounds=rounds)
    except BenchError as error:
        raise fail(error) from None
    if report["celery_note"]:
        console.print(f"Celery not measured: {report['celery_note']}", highlight=False,
                      soft_wrap=True, markup=False)
    print_report(report, as_json, render_table(report))


def render_docker_table(report: dict[str, Any]) -> Table:
    """The Docker-against-process report as a rich table."""
    bots = " vs ".join(bot["name"] for bot in report["bots"])
    table = report_table(
        title=f"League with Docker bots and with process bots: {bots}, {report['game']} with "
              f"{report['players']} seats, {report['matches']} duplicate sets, "
              f"{report['workers']} workers",
        caption=(f"both kept by each worker between matches; rates from the stored "
                 f"timestamps, each worker's first match left out; medians of "
                 f"{len(report['rounds'])} rounds, played in turn\n"
                 f"Python {report['python']}"))
    table.add_column("figure", no_wrap=True)
    table.add_column("value", justify="right")
    table.add_column("goal")
    table.add_column("", justify="center")
    table.add_row("Docker bots: matches per hour", f"{report['docker_matches_per_hour']:,.0f}",
                  "", "")
    table.add_row("process bots: matches per hour",
                  f"{report['process_matches_per_hour']:,.0f}", "", "")
    table.add_row("Docker / process", f"{report['docker_ratio']:.3f}",
                  f"≥ {report['goal_docker_ratio']}", goal_mark(report["meets_docker_goal"]))
    table.add_row("wall time, Docker / process",
                  f"{report['docker_wall_s']:.2f} s / {report['process_wall_s']:.2f} s", "", "")
    table.add_row("rounds: Docker / process", "; ".join(
        "–" if one["docker_ratio"] is None else f"{one['docker_ratio']:.2f}"
        for one in report["rounds"]), "", "")
    return table


def bench_docker_league_command(matches: int, workers: int, as_json: bool,
                                rounds: int) -> None:
    """Run the Docker-against-process league benchmark and print it; one error line if it
    cannot."""
    try:
        check_options(matches, workers, 0.0, rounds)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    console = Console(stderr=True)
    try:
        with status(console) as progress, _quiet_errors():
            report = run_docker_league_bench(matches, workers, rounds, progress)
    except BenchError as error:
        raise fail(error) from None
    print_report(report, as_json, render_docker_table(report))
