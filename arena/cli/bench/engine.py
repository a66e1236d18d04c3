"""``arena bench engine``: the rules engine's decisions per second as a table."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.bench.engine import (
    BRIDGES_HINT,
    DEFAULT_REPEATS,
    DEFAULT_SECONDS,
    BenchDependencyError,
    BridgeLoops,
    Progress,
    run_bridge_bench,
    run_engine_bench,
)
from arena.bench.stats import goal_mark
from arena.cli.console import PIPE_WIDTH


def render_table(report: dict[str, Any]) -> Table:
    """The report as a rich table, one row per game configuration."""
    base = report["baseline"]
    goal = report["goal_ratio"]
    params = ", ".join(f"{key}={value}" for key, value in base["params"].items())
    table = Table(
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        title=f"Engine speed ({report['engine']} engine): random playouts, decisions per second",
        caption=(f"baseline: {base['library']} {base['game']}({params}) from a Python loop, "
                 f"{base['decisions_per_s']:,.0f} decisions/s\nmedians of {report['repeats']} "
                 f"rounds of {report['seconds']} s each for the game and the baseline, taken "
                 f"in alternate slices of {report['slice_seconds']} s; rates per second of "
                 f"{report['clock']}; goal: ratio >= {goal}\nAPI floor (a game with no rules "
                 f"through the same State API and loop): "
                 f"{report['api_floor']['decisions_per_s']:,.0f} decisions/s, ratio "
                 f"{report['api_floor']['ratio']:.2f}"
                 + ("" if report["engine"] == "compiled" else
                    "\nthe interpreted engine: arena engine build compiles it (about 2 minutes)")),
    )
    table.add_column("game", no_wrap=True)
    table.add_column("seats", justify="right")
    table.add_column("playouts/s", justify="right")
    table.add_column("decisions/s", justify="right")
    table.add_column("dec/playout", justify="right")
    table.add_column("baseline/s", justify="right")
    table.add_column("ratio", justify="right")
    table.add_column("goal")
    for row in report["results"]:
        mark = goal_mark(row["meets_goal"])
        table.add_row(
            row["game"],
            str(row["players"]),
            f"{row['playouts_per_s']:,.0f}",
            f"{row['decisions_per_s']:,.0f}",
            f"{row['decisions_per_playout']:.1f}",
            f"{row['baseline_decisions_per_s']:,.0f}",
            f"{row['ratio']:.2f}",
            mark,
        )
    return table


def render_bridges(report: dict[str, Any]) -> Table:
    """The bridges report as a rich table, one row per game configuration."""
    table = Table(
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        title=(f"Bridge speed ({report['engine']} engine, {report['openspiel']}): "
               "decisions per second, alone and through each bridge"),
        caption=(f"{report['measured']}\nmedians of {report['repeats']} rounds of "
                 f"{report['seconds']} s each for the engine and each bridge, taken in turn "
                 f"in slices of {report['slice_seconds']} s; rates per second of "
                 f"{report['clock']}; overhead: how many times longer a decision takes "
                 "through the bridge (the median of the rounds' ratios)"),
    )
    table.add_column("game", no_wrap=True)
    table.add_column("seats", justify="right")
    table.add_column("engine/s", justify="right")
    table.add_column("pettingzoo/s", justify="right")
    table.add_column("overhead", justify="right")
    table.add_column("openspiel/s", justify="right")
    table.add_column("overhead", justify="right")
    for row in report["results"]:
        table.add_row(
            row["game"],
            str(row["players"]),
            f"{row['engine_decisions_per_s']:,.0f}",
            f"{row['pettingzoo_decisions_per_s']:,.0f}",
            f"{row['pettingzoo_overhead']:.1f}x",
            f"{row['openspiel_decisions_per_s']:,.0f}",
            f"{row['openspiel_overhead']:.1f}x",
        )
    return table


@contextmanager
def _status(console: Console) -> Iterator[Progress]:
    """A transient status line on stderr, updated through the yielded callback."""
    with console.status("measuring") as status:
        yield lambda text: status.update(f"measuring {text}")


def bench_engine_command(game_id: str | None = None, as_json: bool = False,
                         seconds: float = DEFAULT_SECONDS,
                         repeats: int = DEFAULT_REPEATS, bridges: bool = False) -> None:
    """Run the benchmark (``bridges``: the engine alone against the PettingZoo and OpenSpiel
    bridges) and print a table (or JSON on stdout); one error line if it cannot."""
    if seconds <= 0:
        raise typer.BadParameter(f"must be positive, got {seconds}", param_hint="--seconds")
    if repeats < 1:
        raise typer.BadParameter(f"must be at least 1, got {repeats}", param_hint="--repeats")
    errors = Console(stderr=True)
    try:
        with _status(errors) as progress:
            if bridges:
                report = run_bridge_bench(_bridge_loops(), game_id, seconds, repeats, progress)
            else:
                report = run_engine_bench(game_id, seconds, repeats, progress)
    except BenchDependencyError as error:
        errors.print(f"[red]error:[/red] {escape(str(error))}", highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        console = Console()
        if not console.is_terminal:
            console.width = max(console.width, PIPE_WIDTH)
        console.print(render_bridges(report) if bridges else render_table(report))


def _bridge_loops() -> BridgeLoops:
    """The environments' loops for the bridges benchmark (``BenchDependencyError`` naming the
    extras when PettingZoo or OpenSpiel is missing)."""
    try:
        from arena.envs.openspiel_speed import bridge_loops
    except ImportError:
        raise BenchDependencyError(BRIDGES_HINT) from None
    return bridge_loops
