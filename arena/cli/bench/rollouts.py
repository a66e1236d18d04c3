"""``arena bench rollouts``: the SDK's ISMCTS with random or heuristic playouts, per game."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from arena.bench.errors import BenchError
from arena.bench.rollouts import run_rollouts_bench
from arena.cli.bench.output import fail, print_report, report_table, status


def cell(figure: dict[str, Any]) -> str:
    """``+0.45 [+0.17, +0.73]``, bold when the interval excludes zero."""
    text = f"{figure['mean']:+.2f}"
    if figure["low"] is not None:
        text += f" [{figure['low']:+.2f}, {figure['high']:+.2f}]"
    return f"[bold]{text}[/bold]" if figure["excludes_zero"] else text


def render_table(report: dict[str, Any]) -> Table:
    """One row per game: each playout policy's gain over the heuristic, and their difference."""
    table = report_table(
        title="ISMCTS (guided by the heuristic) at one seat, the heuristic elsewhere: "
              "gain per deal over the heuristic at that seat",
        caption=(f"{report['budget_ms']} ms of {report['clock']} a decision; paired deals "
                 f"from seed {report['seed']}; means with 95% intervals (bold: zero outside)"),
    )
    for column in ("game", "seats", "deals", "random playouts", "heuristic playouts",
                   "heuristic - random"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for row in report["games"]:
        table.add_row(row["game"], str(row["players"]), str(row["deals"]),
                      cell(row["random_gain"]), cell(row["heuristic_gain"]),
                      cell(row["heuristic_edge"]))
    return table


def bench_rollouts_command(game: str | None, deals: int, budget_ms: int, seed: int,
                           as_json: bool) -> None:
    """Run the measurement and print a table (or JSON); one error line if it cannot."""
    try:
        with status(Console(stderr=True)) as progress:
            report = run_rollouts_bench(game, deals, budget_ms, seed, progress)
    except BenchError as error:
        raise fail(error) from None
    print_report(report, as_json, render_table(report))
