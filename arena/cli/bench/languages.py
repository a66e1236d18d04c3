"""``arena bench languages``: one strategy's decision times across languages as a table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.bench.errors import BenchError
from arena.bench.languages import DEFAULT_DEALS, run_languages_bench
from arena.cli.bench.output import fail, print_report, report_table, status


def render_table(report: dict[str, Any]) -> Table:
    """The report as a rich table, one row per bot."""
    table = report_table(
        title="One strategy in several languages: decision round trips (µs)",
        caption=(f"games {', '.join(report['games'])}, {report['deals']} duplicate "
                 f"deals each against the {report['opponent']} policy; one bot "
                 f"process per bot, Unix socket; ratio: p50 / {report['reference']}'s "
                 "p50; same moves: every match identical to the reference bot's"))
    for column in ("bot", "language", "decisions", "p50", "p95", "p99", "mean", "ratio",
                   "same moves"):
        table.add_column(column, justify="left" if column in ("bot", "language") else "right")
    for entry in report["results"]:
        same = "yes" if entry["same_moves"] else f"no: {entry['first_difference']}"
        ratio = "" if entry["ratio_p50"] is None else f"{entry['ratio_p50']:.2f}"
        table.add_row(entry["bot"], entry["language"], f"{entry['decisions']:,}",
                      f"{entry['p50_us']:,.0f}", f"{entry['p95_us']:,.0f}",
                      f"{entry['p99_us']:,.0f}", f"{entry['mean_us']:,.0f}", ratio, same)
    return table


def bench_languages_command(bots: Sequence[Path] | None = None, deals: int = DEFAULT_DEALS,
                            as_json: bool = False) -> None:
    """Run the bench and print the report (JSON or a table)."""
    console = Console(stderr=True)
    try:
        with status(console) as progress:
            report = run_languages_bench(bots, deals, progress)
    except BenchError as error:
        raise fail(error) from None
    print_report(report, as_json, render_table(report))
