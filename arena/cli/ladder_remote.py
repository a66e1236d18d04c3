"""``arena remote ladder``: the service's continuous ladder, and a bot withdrawn from it or
brought back."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from arena.cli.remote import (
    DEFAULT_SERVER,
    JSON_OPTION,
    SERVER_OPTION,
    TOKEN_OPTION,
    cells,
    connected,
    console,
    print_json,
)
from arena.match.safetext import safe_text
from arena.protocol.platform import api_request

ladder_app = typer.Typer(name="ladder", invoke_without_command=True, add_completion=False,
                         help="The service's ladder: where it stands; withdraw a bot or bring "
                              "it back.")

BOT_ARGUMENT = typer.Argument(metavar="BOT", help="One of your bots.")


@ladder_app.callback()
def ladder_command(
    context: typer.Context,
    as_json: Annotated[bool, JSON_OPTION] = False,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Show the ladder: its games, its active bots with their done sets, the sets in flight."""
    if context.invoked_subcommand is not None:
        return
    with connected(server, token) as arena:
        reply = arena.call("GetLadder", api_request("GetLadder"))
    if as_json:
        print_json(reply, every_field=True)
        return
    table = Table(title=Text(safe_text(
        f"ladder of {', '.join(reply.games)}: {reply.done} sets done, {reply.in_flight} in "
        "flight")), title_justify="left")
    table.add_column("bot")
    table.add_column("sets", justify="right")
    for entry in reply.entries:
        table.add_row(*cells(entry.bot, entry.sets))
    console().print(table)


def _set_entry(bot: str, active: bool, server: str, token: str | None) -> None:
    """Withdraw the bot or bring it back, and say so."""
    with connected(server, token) as arena:
        arena.call("SetLadderEntry", api_request("SetLadderEntry", bot=bot, active=active))
    typer.echo(safe_text(f"{bot} {'is back on' if active else 'is withdrawn from'} the ladder"))


@ladder_app.command("withdraw")
def withdraw_command(
    bot: Annotated[str, BOT_ARGUMENT],
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Withdraw a bot from the ladder (until it is brought back, or a new version comes)."""
    _set_entry(bot, False, server, token)


@ladder_app.command("join")
def join_command(
    bot: Annotated[str, BOT_ARGUMENT],
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Bring a withdrawn bot's latest version back to the ladder."""
    _set_entry(bot, True, server, token)
