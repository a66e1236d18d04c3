"""``arena games``: every game id with its seats, rules page, summary and parameters."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from arena.cli.console import PIPE_WIDTH, safe_console
from arena.cli.game_pages import page_of
from arena.games import GameSpec, Param, game_ids, get_spec


def param_info(param: Param) -> dict[str, Any]:
    """A parameter as a JSON-ready object."""
    return {
        "name": param.name,
        "kind": param.kind,
        "default": param.default,
        "valid": param.describe(),
        "choices": list(param.choices),
        "minimum": param.minimum,
        "maximum": param.maximum,
        "help": param.help,
    }


def game_info(spec: GameSpec) -> dict[str, Any]:
    """A game id as a JSON-ready object."""
    return {
        "id": spec.id,
        "title": spec.title,
        "seats": list(spec.seats),
        "default_seats": spec.default_seats,
        "page": page_of(spec),
        "summary": spec.summary,
        "rules_version": spec.rules_version,
        "origin": spec.origin,
        "params": [param_info(param) for param in spec.params],
    }


def games_table(specs: Sequence[GameSpec]) -> Table:
    """Every game id with its title, seats, rules page (a plugin's: its package), summary and
    parameters."""
    table = Table(title="Games", title_justify="left", show_lines=True)
    table.add_column("game", max_width=36, overflow="fold")
    table.add_column("summary, parameters: name=default (valid values)")
    for spec in specs:
        game = Text(spec.id, style="bold")
        seats = ", ".join(map(str, spec.seats[1:]))
        source = page_of(spec) or f"from {spec.origin}"
        game.append(f"\n{spec.title}\nseats {spec.seats[0]} (default){', ' if seats else ''}"
                    f"{seats}\n{source}")
        lines = [spec.summary] if spec.summary else []
        lines.extend(f"{p.name}={_text(p.default)} ({p.describe()})" for p in spec.params)
        table.add_row(game, "\n".join(lines))
    return table


def _text(value: object) -> str:
    """A parameter value as typed on the command line."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def games_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead.")] = False,
) -> None:
    """List every game id with its seats, rules page, summary and parameters."""
    specs = [get_spec(game_id) for game_id in game_ids()]
    if as_json:
        typer.echo(json.dumps([game_info(spec) for spec in specs], indent=2, ensure_ascii=False))
        return
    console = safe_console()
    if not console.is_terminal:
        console.width = max(console.width, PIPE_WIDTH)
    console.print(games_table(specs))
