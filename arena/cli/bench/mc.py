"""``arena bench mc``: the mc sample bot against the heuristic policy as a table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from arena.bench.errors import BenchError
from arena.bench.mc import DEFAULT_DEALS, SAMPLE_MC, run_mc_bench
from arena.bench.stats import goal_mark
from arena.cli.bench.output import fail, print_report, report_table, status


def render_table(report: dict[str, Any]) -> Table:
    """The report as a rich table: figure, value, goal and verdict."""
    bot = report["bot"]
    name = bot["name"]
    table = report_table(
        title=f"{name} against {report['opponent']}: {report['game']} with "
              f"{report['players']} seats, {report['deals']} duplicate deals",
        caption=(f"bot: {name} {bot['version']} as a process; {report['opponent']}: the "
                 f"reference policy in the arena's process\ndeal i has seed i, played in both "
                 f"seat orders; difference = {name}'s returns - {report['opponent']}'s, summed "
                 f"over both; {report['seconds']:g} s in all"),
    )
    table.add_column("figure", no_wrap=True)
    table.add_column("value", justify="right")
    table.add_column("goal")
    table.add_column("", justify="center")
    level = f"{report['level']:.0%}"
    if report["ci_low"] is None:
        interval, mark = "(needs 2 deals)", goal_mark(False)
    else:
        interval = f"[{report['ci_low']:+.3f}, {report['ci_high']:+.3f}]"
        mark = goal_mark(report["meets_goal"])
    table.add_row("mean difference per deal", f"{report['mean']:+.3f}", "", "")
    table.add_row("standard error", f"{report['se']:.3f}", "", "")
    table.add_row(f"{level} confidence interval", interval, "above zero", mark)
    table.add_row("deals won / tied / lost",
                  f"{report['wins']} / {report['ties']} / {report['losses']}", "", "")
    times = report["decision_ms"]
    table.add_row(f"{name} decision time, p50 / p99",
                  f"{times['p50']:,.1f} / {times['p99']:,.1f} ms", "", "")
    table.add_row(f"{name} decision time, mean / max",
                  f"{times['mean']:,.1f} / {times['max']:,.1f} ms", "", "")
    faults = ", ".join(f"{kind} {count}" for kind, count in report["faults"].items())
    table.add_row(f"{name} faults / forfeits", f"{faults or 'none'} / {report['forfeits']}",
                  "", "")
    return table


def bench_mc_command(deals: int = DEFAULT_DEALS, bot: Path = SAMPLE_MC,
                     as_json: bool = False) -> None:
    """Run the comparison and print a table (or JSON on stdout); one error line if it cannot."""
    if deals < 1:
        raise typer.BadParameter(f"must be at least 1, got {deals}", param_hint="--deals")
    try:
        with status(Console(stderr=True)) as progress:
            report = run_mc_bench(deals, bot, progress)
    except BenchError as error:
        raise fail(error) from None
    print_report(report, as_json, render_table(report))
