"""``arena remote ...``: the client of an arena service (``arena serve``).

Every remote command takes ``--server HOST:PORT`` (or ``ARENA_SERVER``; default
127.0.0.1:50051) and, but for ``register``, ``--token`` (or ``ARENA_TOKEN``). A refused call is
one ``error:`` line with the service's message and its status code, exit code 2. Whatever the
service sends is shown with its control and format characters escaped (``safe_text``), in
tables of ``Text`` that rich never reads as markup; JSON is printed and written with them as
``\\u`` escapes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any

import typer
from google.protobuf.json_format import MessageToDict
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.cli.building import BuildDisplay
from arena.cli.console import safe_console
from arena.cli.options import ForfeitPolicyOption, seed_option
from arena.cli.words import counted
from arena.league.forfeits import DEFAULT_POLICY
from arena.match.safetext import dumps, safe_json, safe_lines, safe_text
from arena.protocol.platform import api_message, api_request, match_state_name
from arena.server.remote import TLS_CA_ENV, TOKEN_ENV, RemoteArena, RemoteError, archive_bytes

BAD_INPUT = 2
"""The exit code of a refused call or bad input."""

DEFAULT_SERVER = "127.0.0.1:50051"

LOG_LINES = 30
"""Lines of a refusal's log (a failed build's) shown with its error line."""

SERVER_OPTION = typer.Option("--server", metavar="HOST:PORT", envvar="ARENA_SERVER",
                             help="The arena service (also ARENA_SERVER).")
TOKEN_OPTION = typer.Option("--token", metavar="TOKEN", envvar=TOKEN_ENV,
                            help="Your API token (also ARENA_TOKEN).")
JSON_OPTION = typer.Option("--json", help="Print JSON instead.")


class RemoteCommandError(typer.TyperException):
    """A call refused by the service, or bad input: one line, exit code 2."""

    exit_code = BAD_INPUT


remote_app = typer.Typer(
    name="remote", no_args_is_help=True, add_completion=False,
    help="Talk to an arena service (arena serve): accounts, bots, leagues, watching, results.")
remote_league_app = typer.Typer(name="league", no_args_is_help=True, add_completion=False,
                                help="Leagues on the service.")
remote_app.add_typer(remote_league_app, name="league")

TLS_CA: ContextVar[Path | None] = ContextVar("tls_ca", default=None)
"""The ``--tls-ca`` of the command being run, for ``connected``."""


@remote_app.callback()
def remote_options(
    tls_ca: Annotated[Path | None, typer.Option(
        "--tls-ca", metavar="PATH", envvar=TLS_CA_ENV,
        help="Talk to the service over TLS, trusting this PEM CA certificate (also "
             f"{TLS_CA_ENV}); a grpcs:// server uses the system's roots.")] = None,
) -> None:
    """Talk to an arena service (arena serve): accounts, bots, leagues, watching, results."""
    TLS_CA.set(tls_ca)


@contextmanager
def connected(server: str, token: str | None, need_token: bool = True) -> Iterator[RemoteArena]:
    """A connection to the service; refusals become one ``error:`` line."""
    if need_token and not token:
        raise RemoteCommandError(f"no API token: pass --token or set {TOKEN_ENV} "
                                 "(arena remote register NAME gives one)")
    try:
        with RemoteArena(server, token, TLS_CA.get()) as arena:
            yield arena
    except RemoteError as error:
        if not error.log:
            raise RemoteCommandError(str(error)) from None
        typer.echo("error: " + safe_text(" ".join(str(error).split())), err=True)
        for line in safe_lines(error.log.rstrip())[-LOG_LINES:]:
            typer.echo("  " + line, err=True)
        raise typer.Exit(BAD_INPUT) from None


def print_json(message: Any, every_field: bool = False) -> None:
    """Print a protobuf message as JSON (``every_field``: zeros and empty maps too, so that
    every bot's ``faults`` and ``forfeits`` are there)."""
    typer.echo(dumps(MessageToDict(message, preserving_proto_field_name=True,
                                   always_print_fields_with_no_presence=every_field), indent=2))


def console() -> Console:
    """The console tables are printed on."""
    return safe_console(soft_wrap=True)


def fault_text(faults: Mapping[str, int]) -> str:
    """Forfeited deals by reason code: ``CRASH 3, TIMEOUT 1``, or ``–``."""
    return ", ".join(f"{reason} {count}" for reason, count in sorted(faults.items())) or "–"


def cells(*texts: object) -> list[Text]:
    """Table cells of text the service sent, made safe to show."""
    return [Text(safe_text(text)) for text in texts]


@remote_app.command("register")
def register_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Your user name.")],
    invite: Annotated[str, typer.Option("--invite", metavar="CODE",
                                        help="An admin's invitation code.")] = "",
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
) -> None:
    """Create a user on the service and print its API token (shown only this once)."""
    with connected(server, None, need_token=False) as arena:
        reply = arena.call("RegisterUser", api_request("RegisterUser", name=name,
                                                       invitation=invite))
    typer.echo(safe_text(reply.token))
    typer.echo(f"user {safe_text(reply.name)} registered; keep the token above "
               f"(export {TOKEN_ENV}=...): it is not shown again", err=True)


@remote_app.command("submit")
def submit_command(
    path: Annotated[Path, typer.Argument(metavar="PATH|ARCHIVE", exists=True,
                                         help="A bot folder with a Dockerfile, or an archive "
                                              "of one (tar, tar.gz, zip).")],
    name: Annotated[str | None, typer.Option(
        "--name", metavar="NAME", help="The bot's name on the service (default: the folder's "
                                       "or archive's name).")] = None,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
    as_json: Annotated[bool, JSON_OPTION] = False,
) -> None:
    """Upload a bot; the service builds it into an image, a new version of your bot."""
    bot_name = name or default_bot_name(path)
    with connected(server, token) as arena:
        data = archive_bytes(path)
        reply = _submit(arena, bot_name, data)
    if as_json:
        print_json(reply)
        return
    console().print(Text(safe_text(
        f"bot {reply.bot.name} version {reply.version.version} built: "
        f"{reply.version.image_ref} (plays {', '.join(reply.version.games)})")))


def _submit(arena: RemoteArena, bot_name: str, data: bytes) -> Any:
    """Upload a bot archive; the service answers once it has built the image, which the
    build display shows meanwhile (on stderr: a spinner, or plain lines off a terminal)."""
    display = BuildDisplay()
    what = f"bot {bot_name} on the service"
    display.started(what)
    start, failed = time.perf_counter(), True
    try:
        reply = arena.call("SubmitBot", api_request("SubmitBot", name=bot_name, archive=data))
        failed = False
    finally:
        display.ended(what, time.perf_counter() - start, failed)
        display.release()
    return reply


def default_bot_name(path: Path) -> str:
    """A bot name from a folder's or archive's name."""
    name = path.resolve().name.lower()
    for suffix in (".tar.gz", ".tgz", ".tar", ".zip"):
        name = name.removesuffix(suffix)
    return name


@remote_app.command("bots")
def bots_command(
    mine: Annotated[bool, typer.Option("--mine", help="Only your bots.")] = False,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
    as_json: Annotated[bool, JSON_OPTION] = False,
) -> None:
    """List the bots uploaded to the service, with their latest versions."""
    with connected(server, token) as arena:
        reply = arena.call("ListBots", api_request("ListBots", mine=mine))
    if as_json:
        print_json(reply, every_field=True)
        return
    table = Table(title="bots", title_justify="left")
    for column in ("bot", "owner", "versions", "latest image", "language", "forfeits"):
        table.add_column(column)
    for bot in reply.bots:
        latest = bot.versions[-1] if bot.versions else api_message("BotVersionInfo")
        table.add_row(*cells(bot.name, bot.owner, len(bot.versions), latest.image_ref,
                             latest.language, fault_text(bot.faults)))
    console().print(table)


@remote_app.command("delete")
def delete_command(
    name: Annotated[str, typer.Argument(metavar="BOT", help="One of your bots.")],
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Delete one of your bots (one that no league uses) and its images."""
    with connected(server, token) as arena:
        reply = arena.call("DeleteBot", api_request("DeleteBot", name=name))
    typer.echo(safe_text(f"bot {name} deleted ({len(reply.removed_images)} images removed)"))


@remote_league_app.command("create")
def league_create_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The league's name.")],
    bot: Annotated[list[str], typer.Option(
        "--bot", metavar="BOT|POLICY", help="An uploaded bot (its latest version) or a "
                                            "reference policy; repeat for each.")],
    games: Annotated[str, typer.Option("--games", metavar="all|ID[,ID]",
                                       help="The games (default: every game all play).")
                     ] = "all",
    deals: Annotated[int, typer.Option("--deals", min=1, help="Deals per table and round.")] = 1,
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="Round robins.")] = 1,
    seed: Annotated[int | None, seed_option(
        help="Make the league reproducible from this seed (its deals are then not secret); by "
             "default they come from the service's secret.")] = None,
    decision_ms: Annotated[int, typer.Option("--decision-ms", min=0,
                                             help="Time per decision (0: default).")] = 0,
    forfeit_policy: ForfeitPolicyOption = DEFAULT_POLICY.value,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Create a league on the service (run it with arena remote league run)."""
    chosen = [] if games.strip() == "all" else [g.strip() for g in games.split(",") if g.strip()]
    request = api_request("CreateLeague", name=name, bots=bot, games=chosen, deals=deals,
                          rounds=rounds, seed=seed, decision_ms=decision_ms,
                          forfeit_policy=forfeit_policy)
    with connected(server, token) as arena:
        status = arena.call("CreateLeague", request).status
    console().print(Text(safe_text(
        f"league {status.name}: {counted(len(status.bots), 'bot')} "
        f"({', '.join(status.bots)}), {counted(len(status.games), 'game')}, "
        f"{counted(status.total, 'match', 'matches')}; run it with: "
        f"arena remote league run {status.name}")))


@remote_league_app.command("run")
def league_run_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The league.")],
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Start running a league on the service (it returns at once)."""
    with connected(server, token) as arena:
        reply = arena.call("RunLeague", api_request("RunLeague", name=name))
    state = "started" if reply.started else "already running"
    typer.echo(safe_text(
        f"league {reply.status.name} {state}: {reply.status.done}/{reply.status.total} "
        f"matches done; follow it with: arena remote league status {reply.status.name}"))


@remote_league_app.command("status")
def league_status_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The league.")],
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
    as_json: Annotated[bool, JSON_OPTION] = False,
) -> None:
    """Show a league's progress and its matches (ids to watch)."""
    with connected(server, token) as arena:
        reply = arena.call("GetLeagueStatus", api_request("GetLeagueStatus", name=name))
    if as_json:
        print_json(reply, every_field=True)
        return
    status = reply.status
    table = Table(title=Text(safe_text(
        f"league {status.name}: {status.done + status.void}/{status.total} "
        f"finished{' (running)' if status.running else ''}")), title_justify="left")
    for column in ("match", "game", "state", "entrants"):
        table.add_column(column)
    for match in reply.matches:
        state = match_state_name(match.state)
        table.add_row(*cells(match.id, match.game, state, ", ".join(match.entrants)))
    console().print(table)
    forfeited = [f"{entry.bot} ({fault_text(entry.faults)})" for entry in status.forfeits
                 if entry.forfeits]
    console().print(*cells(f"forfeits scored as {status.forfeit_policy or 'loss'}; "
                           + ("forfeited: " + "; ".join(forfeited) if forfeited
                              else "no bot forfeited a deal")))


@remote_app.command("watch")
def watch_command(
    match_id: Annotated[str, typer.Argument(metavar="MATCH_ID", help="The match.")],
    as_bot: Annotated[str, typer.Option("--seat-of", metavar="BOT",
                                        help="Watch with your bot's view of its seat.")] = "",
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per update.")
                       ] = False,
) -> None:
    """Follow a match: its state, the deals in play as you may see them, then every deal and
    the outcome, shown as arena play shows a match."""
    from arena.cli.watching import WatchPrinter

    printer = WatchPrinter()
    with connected(server, token) as arena:
        for update in arena.watch(match_id, as_bot):
            if as_json:
                typer.echo(dumps(MessageToDict(update, preserving_proto_field_name=True)))
            else:
                for line in printer.lines(update):
                    console().print(line)


@remote_app.command("leaderboard")
def leaderboard_command(
    league: Annotated[str, typer.Option("--league", metavar="NAME",
                                        help="Only this league.")] = "",
    game: Annotated[str, typer.Option("--game", metavar="ID", help="Only this game.")] = "",
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
    as_json: Annotated[bool, JSON_OPTION] = False,
) -> None:
    """Show the service's OpenSkill leaderboards, per game and overall."""
    with connected(server, token) as arena:
        reply = arena.call("GetLeaderboard",
                           api_request("GetLeaderboard", league=league, game=game))
    if as_json:
        print_json(reply, every_field=True)
        return
    tables = [("overall", reply.overall, reply.overall_note)] if not game else []
    tables += [(board.game, board.ratings, board.note) for board in reply.games]
    for title, ratings, note in tables:
        table = Table(title=Text(safe_text(title)), title_justify="left",
                      caption=Text(safe_text(note)) if note else None, caption_justify="left")
        for column in ("#", "bot", "μ", "σ", "μ − 3σ", "contests", "sets", "forfeits"):
            table.add_column(column)
        for rank, rating in enumerate(ratings, 1):
            table.add_row(*cells(rank, rating.bot, f"{rating.mu:.2f}", f"{rating.sigma:.2f}",
                                 f"{rating.conservative:.2f}", rating.contests, rating.sets,
                                 fault_text(rating.faults)))
        console().print(table)


@remote_app.command("replay")
def replay_command(
    match_id: Annotated[str, typer.Argument(metavar="MATCH_ID", help="A finished match.")],
    out: Annotated[Path | None, typer.Option(
        "--out", metavar="DIR", file_okay=False,
        help="Write deal-N.json files here (arena replay reads them) instead of printing.")
    ] = None,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Fetch the match records of a finished match."""
    with connected(server, token) as arena:
        reply = arena.call("GetReplay", api_request("GetReplay", match_id=match_id))
    if out is None:
        for record in reply.records:
            typer.echo(safe_json(record), nl=False)
        return
    try:
        out.mkdir(parents=True, exist_ok=True)
        for deal, record in enumerate(reply.records):
            (out / f"deal-{deal}.json").write_text(safe_json(record), encoding="utf-8")
    except OSError as error:
        raise RemoteCommandError(f"cannot write to {out}: {error.strerror or error}") from None
    typer.echo(f"{len(reply.records)} records written to {out}")


@remote_app.command("logs")
def logs_command(
    bot: Annotated[str, typer.Argument(metavar="BOT", help="One of your bots.")],
    league: Annotated[str, typer.Option("--league", metavar="NAME",
                                        help="Only this league.")] = "",
    limit: Annotated[int, typer.Option("--limit", min=0, help="At most this many deals.")] = 0,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Show what one of your bots wrote to stderr in its matches, newest first."""
    with connected(server, token) as arena:
        reply = arena.call("GetBotLogs",
                           api_request("GetBotLogs", bot=bot, league=league, limit=limit))
    for entry in reply.entries:
        typer.echo(safe_text(f"== {entry.match_id} deal {entry.deal} seat {entry.seat} "
                             f"({entry.reason})"))
        if entry.stderr:
            typer.echo(safe_text(entry.stderr.rstrip("\n"), multiline=True))
