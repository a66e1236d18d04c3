"""The ``arena`` command: every command group of this package, assembled into one app."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from arena import __version__
from arena.cli.accounts import add_account_commands
from arena.cli.admin import admin_app
from arena.cli.bench import bench_app
from arena.cli.bot import bot_app
from arena.cli.compare import compare_command
from arena.cli.engine import engine_app
from arena.cli.games import games_command
from arena.cli.group import ArenaGroup
from arena.cli.images import images_app
from arena.cli.ladder_remote import ladder_app
from arena.cli.leaderboard import leaderboard_command
from arena.cli.league import league_app
from arena.cli.play import PlayCommand, play_command, replay_command
from arena.cli.remote import remote_app
from arena.cli.report import report_command
from arena.cli.sandbox import sandbox_app
from arena.cli.serve import serve_command


class Arena(ArenaGroup):
    """The ``arena`` group: its commands listed by panel, the main ones first."""

    order = ("games", "play", "replay", "bot", "images", "league", "leaderboard", "report",
             "compare", "worker", "serve", "remote", "sandbox", "bench", "engine")


app = typer.Typer(
    cls=Arena,
    name="arena",
    help="Card Arena: traditional card games for bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
PLAY = "Play and bots"
LEAGUES = "Leagues"
SERVICE = "Service"
TOOLS = "Tools"
"""The panels of ``arena --help``, in the order they are shown."""

app.command("games", rich_help_panel=PLAY)(games_command)
app.command("play", cls=PlayCommand, rich_help_panel=PLAY)(play_command)
app.command("replay", rich_help_panel=PLAY)(replay_command)
app.add_typer(bot_app, name="bot", rich_help_panel=PLAY)
app.add_typer(images_app, name="images", rich_help_panel=PLAY)
app.add_typer(league_app, name="league", rich_help_panel=LEAGUES)
app.command("leaderboard", rich_help_panel=LEAGUES)(leaderboard_command)
app.command("report", rich_help_panel=LEAGUES)(report_command)
app.command("compare", rich_help_panel=LEAGUES)(compare_command)


@app.command("worker", add_help_option=False, rich_help_panel=LEAGUES,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def worker_command(ctx: typer.Context) -> None:
    """Run league matches sent through a broker, on this host, until stopped (Ctrl-C)."""
    try:
        from arena.cli.worker import main as worker_main
    except ImportError as error:
        raise typer.BadParameter(f"the worker needs Celery: pip install 'card-arena[celery]' "
                                 f"({error})") from None
    worker_main(list(ctx.args), prog_name="arena worker")


def _show_version(value: bool) -> None:
    """Print the package version and stop."""
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


def _use_runtime(name: str | None) -> str | None:
    """Run bot containers of this command (and the processes it starts) with the Docker
    runtime ``name``, once the engine is known to have it."""
    if name is None:
        return None
    from arena.sandbox.engine import check_runtime
    from arena.sandbox.errors import SandboxError
    from arena.sandbox.limits import RUNTIME_ENV

    try:
        check_runtime(name)
    except SandboxError as error:
        raise typer.BadParameter(str(error), param_hint="'--runtime'") from None
    os.environ[RUNTIME_ENV] = name
    return name


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
    runtime: Annotated[str | None, typer.Option(
        "--runtime", metavar="NAME", callback=_use_runtime,
        help="The Docker runtime of bot containers (default: the engine's; "
             "CARDARENA_DOCKER_RUNTIME).")] = None,
) -> None:
    """Card Arena: traditional card games for bots."""


app.command("serve", rich_help_panel=SERVICE)(serve_command)
add_account_commands(remote_app)
remote_app.add_typer(ladder_app, name="ladder")
app.add_typer(remote_app, name="remote", rich_help_panel=SERVICE)
app.add_typer(admin_app, name="admin", rich_help_panel=SERVICE)
app.add_typer(sandbox_app, name="sandbox", rich_help_panel=TOOLS)
app.add_typer(bench_app, name="bench", rich_help_panel=TOOLS)
app.add_typer(engine_app, name="engine", rich_help_panel=TOOLS)
