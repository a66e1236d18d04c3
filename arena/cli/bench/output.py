"""What every ``arena bench`` command shares: a status line while it measures, the report as
JSON or a table, and one error line when it cannot run."""

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

from arena.bench.errors import BenchError
from arena.bench.protocol import Progress
from arena.cli.building import show_builds
from arena.cli.console import PIPE_WIDTH


@contextmanager
def status(console: Console) -> Iterator[Progress]:
    """A transient status line on stderr, updated through the yielded callback; the bench's
    builds (bots it compiles, images it builds) are shown as ``arena bot build`` shows them,
    in that line on a terminal."""
    with console.status("measuring") as line, show_builds(console, line):
        yield lambda text: line.update(f"measuring: {text}")


def report_table(**options: Any) -> Table:
    """A table in the benches' shared style (a simple head, no edge padding, the caption on the
    left), with ``options`` (title, caption) given to rich."""
    return Table(box=box.SIMPLE_HEAD, pad_edge=False, caption_justify="left", **options)


def print_report(report: dict[str, Any], as_json: bool, table: Table) -> None:
    """Write the report as JSON on stdout, or print the table."""
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return
    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, PIPE_WIDTH)
    console.print(table)


def fail(error: BenchError) -> typer.Exit:
    """Print the error on stderr; the exit to raise."""
    Console(stderr=True).print(f"[red]error:[/red] {escape(str(error))}", highlight=False,
                               soft_wrap=True)
    return typer.Exit(code=1)
