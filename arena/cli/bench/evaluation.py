"""``arena bench evaluation``: what duplicate buys, as a table."""

from __future__ import annotations

from collections import Counter
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from arena.bench.errors import BenchError
from arena.bench.evaluation import reason_text, run_evaluation_bench
from arena.bench.stats import goal_mark
from arena.cli.bench.output import fail, print_report, report_table, status
from arena.games import GameError


def _number(value: float | None, pattern: str = "{:.3g}") -> str:
    """A figure, or a dash for none."""
    return "–" if value is None else pattern.format(value)


def render_table(report: dict[str, Any]) -> Table:
    """One row per game and pair: variances, deals needed, their ratio and the goal."""
    table = report_table(title="What duplicate buys: deals needed to separate a pair at 95%")
    for name, justify in (("game", "left"), ("pair", "left"), ("mean", "right"),
                          ("var plain", "right"), ("var dup", "right"),
                          ("deals plain", "right"), ("deals dup", "right"),
                          ("ratio", "right"), ("goal ≤ 0.5", "center")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in report["rows"]:
        mark = "same" if not row["differs"] else "no spread" if row["ratio"] is None else (
            goal_mark(row["meets_goal"]))
        table.add_row(row["game"], f"{row['a']}-{row['b']}",
                      _number(row["mean_difference"], "{:+.3f}"),
                      _number(row["variance_plain"]), _number(row["variance_duplicate"]),
                      _number(row["deals_plain"], "{:,.1f}"),
                      _number(row["deals_duplicate"], "{:,.1f}"),
                      _number(row["ratio"], "{:.3f}"), mark)
    lines = [f"{report['deals']} deals a game for heuristic-random, {report['mc_deals']} for "
             f"mc-heuristic (mc: {report['mc_budget_ms']} ms a decision); seed {report['seed']}; "
             f"{report['seconds']:g} s",
             "deals dup counts distinct deals (each played once per rotation); same: the "
             "pair's 95% interval includes 0"]
    lines += [f"missed in {item['game']} ({item['a']}-{item['b']}): {item['why']}"
              for item in report["missed"]]
    lines += [f"{row['game']} ({row['a']}-{row['b']}): {row['why']}" for row in report["rows"]
              if row["differs"] and row["ratio"] is None]
    lines += [f"{row['game']} ({row['a']}-{row['b']}): {row['left_out']} sets with a forfeit "
              f"left out ({reason_text(Counter(row['forfeits']))}), others played in their place"
              for row in report["rows"] if row["left_out"]]
    lines += [f"not measured: {item['game']} ({item['a']}-{item['b']}): {item['why']}"
              for item in report["skipped"]]
    table.caption = "\n".join(lines)
    return table


def bench_evaluation_command(game_id: str | None, deals: int, mc_deals: int, mc_budget_ms: int,
                             seed: int, as_json: bool) -> None:
    """Run the bench and print its table (or JSON); one error line if it cannot."""
    try:
        with status(Console(stderr=True)) as progress:
            report = run_evaluation_bench(game_id, deals, mc_deals, mc_budget_ms, seed,
                                          progress=progress)
    except BenchError as error:
        raise fail(error) from None
    except GameError as error:
        raise typer.BadParameter(str(error), param_hint="--game") from None
    print_report(report, as_json, render_table(report))
