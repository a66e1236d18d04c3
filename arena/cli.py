"""The ``arena`` command line: the games, local matches, replays and benchmarks."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from arena import __version__
from arena.games import GameError, GameSpec, Param, game_ids, get_spec, load_game
from arena.games.rng import MAX_SEED
from arena.match import MatchError, MatchRecord, play_local, replay
from arena.match.render import render_match
from arena.policies import policy_names

USAGE_ERROR = 2
"""The exit code of bad input."""

PIPE_WIDTH = 120
"""The width of tables written to a pipe or file rather than a terminal."""


class CliError(typer.TyperException):
    """Bad input found by the command line itself."""

    exit_code = USAGE_ERROR


def error_line(message: str) -> str:
    """The one line that reports bad input."""
    return "error: " + " ".join(message.split())


class ArenaGroup(TyperGroup):
    """The command group, reporting bad input as one ``error:`` line and exit code 2."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        """Run a command; turn usage, engine and record errors into one line on stderr."""
        try:
            result = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                  **extra)
            code = result if isinstance(result, int) else 0
        except typer.TyperException as error:
            message = error.format_message()
            # A bare group raises NoArgsIsHelpError after rich has already shown its help.
            if type(error).__name__ != "NoArgsIsHelpError":
                typer.echo(error_line(message), err=True)
            elif message.strip():
                typer.echo(message)
            code = USAGE_ERROR
        except (GameError, MatchError) as error:
            typer.echo(error_line(str(error)), err=True)
            code = USAGE_ERROR
        except typer.Abort:
            typer.echo(error_line("aborted"), err=True)
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    cls=ArenaGroup,
    name="arena",
    help="Card Arena: traditional card games for bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
bench_app = typer.Typer(
    help="Benchmarks that print figures against a baseline measured in the same run.",
    no_args_is_help=True,
)
app.add_typer(bench_app, name="bench")


def _show_version(value: bool) -> None:
    """Print the package version and stop."""
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
) -> None:
    """Card Arena: traditional card games for bots."""


# --- arena games ------------------------------------------------------------------------------


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
        "section": spec.section,
        "summary": spec.summary,
        "rules_version": spec.rules_version,
        "origin": spec.origin,
        "params": [param_info(param) for param in spec.params],
    }


def games_table(specs: Sequence[GameSpec]) -> Table:
    """Every game id with its title, seats, rules section, summary and parameters."""
    table = Table(title="Games", title_justify="left", show_lines=True)
    table.add_column("game", max_width=32)
    table.add_column("summary, parameters: name=default (valid values)")
    for spec in specs:
        game = Text(spec.id, style="bold")
        seats = ", ".join(map(str, spec.seats[1:]))
        source = f"RULES.md §{spec.section}" if spec.origin == "arena" else f"from {spec.origin}"
        game.append(f"\n{spec.title}\nseats {spec.seats[0]} (default){', ' if seats else ''}"
                    f"{seats}\n{source}")
        lines = [spec.summary] if spec.summary else []
        lines.extend(f"{p.name}={_text(p.default)} ({p.describe()})" for p in spec.params)
        table.add_row(game, "\n".join(lines))
    return table


def _text(value: object) -> str:
    """A parameter value as typed on the command line."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@app.command()
def games(
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead.")] = False,
) -> None:
    """List every game id with its seats, rules section, summary and parameters."""
    specs = [get_spec(game_id) for game_id in game_ids()]
    if as_json:
        typer.echo(json.dumps([game_info(spec) for spec in specs], indent=2, ensure_ascii=False))
        return
    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, PIPE_WIDTH)
    console.print(games_table(specs))


# --- arena play / replay ----------------------------------------------------------------------


def parse_params(items: Sequence[str]) -> dict[str, str]:
    """``key=value`` texts as a dict (the game validates names and values)."""
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CliError(f"malformed --param {item!r}: expected key=value, "
                           "such as --param hands=3")
        if key in params:
            raise CliError(f"--param {key} is given twice")
        params[key] = value.strip()
    return params


@app.command()
def play(
    game_id: Annotated[str, typer.Argument(metavar="GAME",
                                           help="A game id (see `arena games`).")],
    players: Annotated[int | None, typer.Option(
        "--players", "-n", help="Seat count (default: the game's first).")] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", metavar="KEY=VALUE", help="A game parameter; repeat for more.")] = None,
    seed: Annotated[int, typer.Option(
        "--seed", "-s", min=0, max=MAX_SEED, help="The match seed.")] = 1,
    policy: Annotated[list[str] | None, typer.Option(
        "--policy", metavar="NAME",
        help=f"A policy per seat in seat order, repeated cyclically "
             f"({' or '.join(policy_names())}; default heuristic).")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the match record as JSON instead.")] = False,
    save: Annotated[Path | None, typer.Option(
        "--save", metavar="FILE", dir_okay=False, help="Write the match record to FILE.")] = None,
) -> None:
    """Play a match between reference policies and show it hand by hand."""
    game = load_game(game_id, players, parse_params(param or []))
    record = play_local(game, seed, policy or [])
    if save is not None:
        record.save(save)
    if as_json:
        typer.echo(record.to_json(), nl=False)
        return
    console = Console(highlight=False)
    render_match(record, console)
    if save is not None:
        console.print(f"record saved to {save}", soft_wrap=True)


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(metavar="FILE",
                                         help="A match record saved by `arena play --save`.")],
) -> None:
    """Re-simulate a saved match, check its returns, and show it hand by hand."""
    record = MatchRecord.load(file)
    replay(record)
    console = Console(highlight=False)
    render_match(record, console)
    console.print(f"replay verified: {len(record.actions)} actions, the returns match the "
                  "record", soft_wrap=True)


# --- arena bench ------------------------------------------------------------------------------


@bench_app.command("engine")
def bench_engine(
    game: Annotated[str | None, typer.Option(
        "--game", metavar="ID", help="One game id (default: every game).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    seconds: Annotated[float, typer.Option(
        "--seconds", help="Time per measurement.")] = 0.5,
    repeats: Annotated[int, typer.Option(
        "--repeats", help="Measurements per figure.")] = 5,
) -> None:
    """Measure the rules engine's decisions per second against a baseline."""
    try:
        from arena.bench.engine import bench_engine_command
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("arena"):
            raise CliError("arena bench engine is not part of this installation "
                           f"(no module {error.name})") from None
        raise CliError(f"arena bench engine needs the module {error.name!r}: "
                       "pip install -e '.[bench]'") from None
    bench_engine_command(game, as_json, seconds, repeats)
