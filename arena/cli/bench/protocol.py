"""``arena bench protocol``: a decision's round trip to a bot process as a table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from arena.bench.errors import BenchError
from arena.bench.protocol import (
    CLOCK_GAME,
    CLOCK_MATCHES,
    DEFAULT_CONCURRENCY,
    DEFAULT_GAME,
    DEFAULT_ROUNDS,
    DEFAULT_THROUGHPUT_S,
    SAMPLE_RANDOM,
    check_options,
    run_protocol_bench,
)
from arena.bench.stats import goal_mark
from arena.cli.bench.output import fail, print_report, report_table, status


def render_table(report: dict[str, Any]) -> Table:
    """The report as a rich table: figure, value, goal and verdict."""
    bot = report["bot"]
    sizes = report["request_bytes"]
    trips = report["round_trips"]
    table = report_table(
        title=f"Protocol: a decision's round trip to a bot process, {report['game']} with "
              f"{report['players']} seats",
        caption=(f"bot: {bot['name']} {bot['version']} at every seat, a process over a Unix "
                 f"socket; raw: a bare gRPC server answering at once; requests of "
                 f"{sizes['mean']:.0f} bytes on average, at most {sizes['max']}\n"
                 f"{trips['arena']} arena, {trips['raw']} raw and {trips['bot']} bot-alone "
                 f"round trips in {report['rounds']} interleaved rounds; arena side: the "
                 f"runner's CPU time per decision against agents that answer at once "
                 f"(observation, encoding, reading and checking the answer, applying, "
                 f"recording; gRPC transport excluded)\n"
                 f"Python {report['python']}, grpcio {report['grpc']}"),
    )
    table.add_column("figure", no_wrap=True)
    table.add_column("value", justify="right")
    table.add_column("goal")
    table.add_column("", justify="center")

    def micros(value: float) -> str:
        """A time in whole microseconds."""
        return f"{value:,.0f} µs"

    table.add_row("round trip p50 / p99, arena",
                  f"{micros(report['p50_us'])} / {micros(report['p99_us'])}", "", "")
    table.add_row("  charged to the bot p50 / p99",
                  f"{micros(report['charged_p50_us'])} / {micros(report['charged_p99_us'])}",
                  "", "")
    table.add_row("round trip p50 / p99, raw gRPC",
                  f"{micros(report['raw_p50_us'])} / {micros(report['raw_p99_us'])}", "", "")
    table.add_row("round trip p50 / p99, bot alone",
                  f"{micros(report['bot_p50_us'])} / {micros(report['bot_p99_us'])}", "", "")
    table.add_row("p50 arena / raw", f"{report['ratio']:.2f}", f"≤ {report['goal_ratio']}",
                  goal_mark(report["meets_ratio_goal"]))
    table.add_row("  of the p50 gap: the bot's share", micros(report["bot_share_us"]), "", "")
    table.add_row("  of the p50 gap: the arena's share", micros(report["arena_share_us"]), "",
                  "")
    table.add_row("arena-side work per decision", f"{report['arena_us_per_decision']:.1f} µs",
                  f"≤ {report['goal_arena_us']:g} µs", goal_mark(report["meets_arena_goal"]))
    for row in report["throughput"]:
        matches = row["matches"]
        at_once = f"{matches} match{'es' if matches != 1 else ''} at once"
        table.add_row(f"decisions/s, {at_once}", f"{row['decisions_per_s']:,.0f}", "", "")
        table.add_row(f"  round trip p50 / p99, {at_once}",
                      f"{micros(row['p50_us'])} / {micros(row['p99_us'])}", "", "")
        table.add_row(f"  charged to the bot p50 / p99, {at_once}",
                      f"{micros(row['charged_p50_us'])} / {micros(row['charged_p99_us'])}",
                      "", "")
        table.add_row("  arena process CPU per decision (gRPC included)",
                      micros(row["arena_cpu_us_per_decision"]), "", "")
        table.add_row(f"  bot processes' CPU per decision ({row['bot_processes']} processes)",
                      micros(row["bots_cpu_us_per_decision"]), "", "")
    clock = report.get("clock")
    if clock is not None:
        under = (f"{clock['matches']} matches of {clock['game']} ({clock['players']} seats) "
                 "at once")
        table.add_row(f"round trip p50 / p99, {under}",
                      f"{micros(clock['p50_us'])} / {micros(clock['p99_us'])}", "", "")
        table.add_row("  charged to the bot p50 / p99",
                      f"{micros(clock['charged_p50_us'])} / {micros(clock['charged_p99_us'])}",
                      f"p99 ≤ {micros(clock['goal_charged_p99_us'])}",
                      goal_mark(clock["meets_charged_goal"]))
    return table


def bench_protocol_command(game_id: str = DEFAULT_GAME, players: int | None = None,
                           bot: Path = SAMPLE_RANDOM, rounds: int = DEFAULT_ROUNDS,
                           concurrency: Sequence[int] = DEFAULT_CONCURRENCY,
                           throughput_s: float = DEFAULT_THROUGHPUT_S,
                           as_json: bool = False, clock_matches: int = CLOCK_MATCHES,
                           clock_game: str = CLOCK_GAME) -> None:
    """Run the benchmark and print a table (or JSON on stdout); one error line if it cannot."""
    try:
        check_options(rounds, concurrency, throughput_s, clock_matches)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    try:
        with status(Console(stderr=True)) as progress:
            report = run_protocol_bench(game_id, players, bot, rounds, concurrency,
                                        throughput_s, progress, clock_matches, clock_game)
    except BenchError as error:
        raise fail(error) from None
    print_report(report, as_json, render_table(report))
