"""``arena bench sandbox``: a Docker bot's cold start and round trip as a table."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from arena.bench.errors import BenchError
from arena.bench.sandbox import (
    DEFAULT_DECISIONS,
    DEFAULT_STARTS,
    check_options,
    run_sandbox_bench,
)
from arena.bench.stats import goal_mark
from arena.cli.bench.output import fail, print_report, report_table, status


def render_table(report: dict[str, Any]) -> Table:
    """The report as a rich table: figure, value, goal and verdict."""
    image = report["image"]
    trips = report["round_trips"]
    allowed = report["allow_unenforced"]
    table = report_table(
        title=f"Sandbox: the {report['bot']['name']} bot in a hardened container, "
              f"{report['game']} with {report['players']} seats",
        caption=(f"image {image['ref']} ({image['image_id'][:19]}); cold start: from "
                 f"creating the container to the first Decision received, over "
                 f"{report['starts']} starts (each a new container); its parts from as many "
                 f"stamped starts, alternating with them; the floor from as many bare runs\n"
                 f"round trips: {trips['docker']} in containers and {trips['process']} with the "
                 f"same bot folder as local processes, in alternate duplicate sets, the bot at "
                 f"every seat\n"
                 + (f"limits not enforced (allowed): {', '.join(allowed)}\n" if allowed else "")
                 + f"Docker {report['docker_version'] or '?'}, Python {report['python']}, "
                   f"grpcio {report['grpc']}"),
    )
    table.add_column("figure", no_wrap=True)
    table.add_column("value", justify="right")
    table.add_column("goal")
    table.add_column("", justify="center")

    def micros(value: float) -> str:
        """A time in whole microseconds."""
        return f"{value:,.0f} µs"

    table.add_row("cold start to first decision, p50 (from create)",
                  f"{report['cold_start_p50_s']:.3f} s",
                  f"≤ {report['goal_cold_start_s']:g} s",
                  goal_mark(report["meets_cold_start_goal"]))
    table.add_row("  each start", ", ".join(f"{s:.2f}" for s in report["cold_start_s"]) + " s",
                  "", "")
    table.add_row("  from start (container created ahead), p50",
                  f"{report['cold_start_from_start_p50_s']:.3f} s", "", "")
    table.add_row("  from the agent's launch, p50",
                  f"{report['cold_start_from_launch_p50_s']:.3f} s", "", "")
    table.add_row("floor: docker run IMAGE true, same options, p50",
                  f"{report['floor_p50_s']:.3f} s", "", "")
    table.add_row("  floor from start, p50", f"{report['floor_from_start_p50_s']:.3f} s", "", "")
    table.add_row("cold start / floor (from create; from start)",
                  f"{report['floor_ratio']:.2f}; {report['floor_ratio_from_start']:.2f}", "", "")
    parts = report.get("parts_s") or report["parts_plain_s"]
    table.add_row("parts, p50 each" + (f" (stamped starts: {report['stamped_cold_start_p50_s']:.3f}"
                                       " s from create)" if "parts_s" in report else ""),
                  "", "", "")
    cpu = report.get("parts_cpu_s") or {}
    for name, seconds in parts.items():
        used = f" (CPU {cpu[name] * 1000:.0f} ms)" if name in cpu else ""
        table.add_row(f"  {name}", f"{seconds * 1000:.0f} ms{used}", "", "")
    table.add_row("round trip p50 / p99, container",
                  f"{micros(report['p50_us'])} / {micros(report['p99_us'])}", "", "")
    table.add_row("round trip p50 / p99, process",
                  f"{micros(report['process_p50_us'])} / {micros(report['process_p99_us'])}",
                  "", "")
    table.add_row("p50 container / process", f"{report['ratio']:.2f}",
                  f"≤ {report['goal_ratio']:g}", goal_mark(report["meets_ratio_goal"]))
    return table


def bench_sandbox_command(starts: int = DEFAULT_STARTS, decisions: int = DEFAULT_DECISIONS,
                          as_json: bool = False,
                          allow_unenforced: frozenset[str] = frozenset()) -> None:
    """Run the benchmark and print a table (or JSON on stdout); one error line if it cannot.

    Docker errors (no engine, a limit not enforced) pass to the command line as one line."""
    try:
        check_options(starts, decisions)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    try:
        with status(Console(stderr=True)) as progress:
            report = run_sandbox_bench(starts, decisions, allow_unenforced=allow_unenforced,
                                       progress=progress)
    except BenchError as error:
        raise fail(error) from None
    print_report(report, as_json, render_table(report))
