"""``arena bench search``: the SDK's ISMCTS against OpenSpiel's, iterations per second."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from arena.bench.errors import BenchError
from arena.bench.search import run_search_bench
from arena.bench.stats import goal_mark
from arena.cli.bench.output import fail, print_report, report_table, status


def render_table(report: dict[str, Any]) -> Table:
    """One row per game: both rates, the ratio and the goal."""
    table = report_table(
        title=f"ISMCTS iterations per CPU second: the SDK against OpenSpiel "
              f"({report['engine']} engine)",
        caption=(f"{report['positions']} positions per game from random playouts, each searched "
                 f"{report['seconds']:g} s of {report['clock']} by each, {report['rollouts']} "
                 f"rollouts; medians; goal: ratio >= {report['goal_ratio']:g}"),
    )
    for column in ("game", "seats", "SDK it/s", "OpenSpiel it/s", "ratio", "goal"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for row in report["games"]:
        if row["ratio"] is None:
            table.add_row(row["game"], str(row["players"]), "-", "-",
                          f"no sample ({row['unsampled']})", "")
            continue
        note = f" ({row['unsampled']} unsampled)" if row["unsampled"] else ""
        table.add_row(row["game"], str(row["players"]), f"{row['sdk_per_s']:,.0f}",
                      f"{row['openspiel_per_s']:,.0f}", f"{row['ratio']:.2f}{note}",
                      goal_mark(row["meets_goal"]))
    return table


def bench_search_command(game: str | None, positions: int, seconds: float,
                         as_json: bool) -> None:
    """Run the measurement and print a table (or JSON); one error line if it cannot."""
    try:
        with status(Console(stderr=True)) as progress:
            report = run_search_bench(game, positions, seconds, progress)
    except BenchError as error:
        raise fail(error) from None
    print_report(report, as_json, render_table(report))
