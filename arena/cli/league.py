"""The league commands: ``arena league create|run|status``.

Every command takes ``--db`` (a SQLite path or a database URL; the default file is under the
user's data directory). Bad input (an unknown bot, game or league, a name taken, an unreachable
database or broker) is one ``error:`` line and exit code 2, with nothing left in the database.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.bots import BotConfigError, BotManifest, ensure_built
from arena.cli.building import show_builds
from arena.cli.console import safe_console
from arena.cli.options import (
    BankMsOption,
    DecisionMsOption,
    ForfeitPolicyOption,
    StartupMsOption,
    StrikesOption,
    seed_option,
)
from arena.cli.progress import LeagueProgress
from arena.cli.store import DB_OPTION, LeagueCommandError, bad_input, store_url_of, with_store
from arena.cli.words import counted
from arena.league.create import (
    ALL_GAMES,
    LeagueSettings,
    create_league,
    parse_forfeit_policy,
)
from arena.league.forfeits import DEFAULT_POLICY, FAULT_REASONS, FaultCount
from arena.league.run_match import DEFAULT_LEASE_S
from arena.league.status import (
    LeagueStatus,
    find_league,
    league_bots,
    league_status,
    standings,
)
from arena.match.faults import DEFAULT_STRIKES
from arena.match.safetext import dumps, safe_text
from arena.match.timecontrol import (
    DEFAULT_BANK_MS,
    DEFAULT_DECISION_MS,
    DEFAULT_STARTUP_MS,
    TimeControl,
)
from arena.store import Store, open_store
from arena.store.leagues import entrant_versions

INTERRUPTED_EXIT = 130
"""The exit code of a run stopped by Ctrl-C (resume it by running it again)."""

VOID_EXIT = 1
"""The exit code of a run that ended with void matches."""
league_app = typer.Typer(
    name="league", no_args_is_help=True, add_completion=False,
    help="Leagues: round robins in duplicate over every game, run here or on Celery workers.")


@league_app.command("create")
def create_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The league's name.")],
    bot: Annotated[list[str], typer.Option(
        "--bot", metavar="PATH|image:NAME|POLICY",
        help="An entrant: a bot folder (run as a local process), image:NAME (a bot image, "
             "run in a hardened container), or a reference policy (random, heuristic); "
             "repeat for each.")],
    games: Annotated[str, typer.Option(
        "--games", metavar="all|ID[,ID]",
        help="The games: all (every game all the bots play) or a comma-separated list.")
    ] = ALL_GAMES,
    deals: Annotated[int, typer.Option("--deals", min=1, help="Deals per table and round.")] = 1,
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="Round robins to play.")] = 1,
    seed: Annotated[int | None, seed_option(
        help="Make the league reproducible: every deal comes from this seed, so anyone who "
             "knows it knows the deals (not secret). Without it, the deals come from a random "
             "secret kept in the database.")] = None,
    decision_ms: DecisionMsOption = DEFAULT_DECISION_MS,
    bank_ms: BankMsOption = DEFAULT_BANK_MS,
    startup_ms: StartupMsOption = DEFAULT_STARTUP_MS,
    strikes: StrikesOption = DEFAULT_STRIKES,
    forfeit_policy: ForfeitPolicyOption = DEFAULT_POLICY.value,
    replace: Annotated[bool, typer.Option(
        "--replace", help="Delete a league of the same name first, with its results.")] = False,
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Create a league: its bots and every match of its schedule (nothing runs yet)."""
    with bad_input():
        settings = LeagueSettings(TimeControl(decision_ms=decision_ms, bank_ms=bank_ms,
                                              startup_ms=startup_ms), strikes,
                                  forfeit_policy=parse_forfeit_policy(forfeit_policy))

    def create(store: Store) -> LeagueStatus:
        """Create the league and read back its status."""
        game_list: str | list[str] = games if games.strip() == ALL_GAMES else [
            game.strip() for game in games.split(",") if game.strip()]
        create_league(store, name, bot, game_list, deals, rounds, seed, settings, replace)
        with store.session() as session:
            return league_status(session, name.strip())

    status = with_store(db, create)
    console = safe_console(soft_wrap=True)
    seeds = "secret deals" if seed is None else f"deals from seed {seed} (reproducible, " \
        "not secret)"
    console.print(f"league {status.name}: {counted(len(status.bots), 'bot')} "
                  f"({', '.join(status.bots)}), {counted(len(status.games), 'game')}, "
                  f"{counted(status.total, 'match', 'matches')}, {seeds}, forfeits scored as "
                  f"{settings.forfeit_policy.value}; run it with: arena league run {status.name}")


@league_app.command("run")
def run_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="The league to run.")],
    workers: Annotated[int, typer.Option(
        "--workers", "-w", min=1, help="Local worker processes (one match each at a time).")
    ] = 2,
    broker: Annotated[str | None, typer.Option(
        "--broker", metavar="URL",
        help="Send the matches through Celery (redis://host:6379/0, amqp://...) to "
             "`arena worker` processes instead of running them here.")] = None,
    lease_s: Annotated[float, typer.Option(
        "--lease-s", min=1.0,
        help="Lease length in seconds (renewed while a match runs) of the local workers. A "
             "match of a run that was killed waits this long before the next run takes it; a "
             "worker that dies has its leases handed back at once, hence a longer default than "
             "`arena worker`'s. Not for --broker: each `arena worker` takes its own --lease-s.")
    ] = DEFAULT_LEASE_S,
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Run a league's matches that are not done yet, with a live progress bar.

    Ctrl-C stops it; running it again resumes it: nothing is lost and nothing runs twice.
    """
    if broker is not None and given(ctx, "lease_s"):
        raise LeagueCommandError("--lease-s is for local runs; with --broker each `arena "
                                 "worker` takes its own --lease-s")
    url = store_url_of(db)
    console = Console(stderr=True)
    with bad_input(), open_store(url) as store, store.session() as session:
        status = league_status(session, name)
        names = league_bots(session, find_league(session, name))
        league_id = find_league(session, name).id
        folders = [version.path for version in entrant_versions(session, league_id)
                   if version.path is not None]
    if broker is None:
        build_here(folders, console)
    with LeagueProgress(status.name, status.total, status.done, status.games,
                        console) as view:
        def show(current: LeagueStatus, leaders: dict[str, list[tuple[str, float]]],
                 note: str) -> None:
            """Redraw the view from the league's status."""
            view.update(current.done, leaders, game_counts(current), note)

        if broker is None:
            status, interrupted = _run_local(url, name, workers, lease_s, show)
        else:
            status, interrupted = _run_broker(url, name, broker, league_id, names, show)
    output = safe_console(soft_wrap=True)
    print_status(status, output)
    output.print(Text(safe_text(forfeit_line(status)),
                      style="red" if status.forfeiters else ""))
    if interrupted:
        console.print(f"interrupted; resume with: arena league run {name}")
        raise typer.Exit(INTERRUPTED_EXIT)
    if status.void:
        raise typer.Exit(VOID_EXIT)


def given(ctx: typer.Context, param: str) -> bool:
    """Whether the command line gave ``param`` (rather than its default)."""
    source = ctx.get_parameter_source(param)
    return source is not None and source.name == "COMMANDLINE"


def build_here(folders: list[str], console: Console) -> None:
    """Build the league's compiled bots in this process first, each build shown, so that the
    local workers find them built (a build that fails is noted; its matches record it)."""
    with show_builds(console):
        for folder in folders:
            try:
                ensure_built(BotManifest.load(Path(folder)))
            except BotConfigError as error:
                console.print(Text(safe_text("warning: " + " ".join(str(error).split())),
                                   style="yellow"))


def _run_local(url: str, name: str, workers: int, lease_s: float,
               show: Callable[[LeagueStatus, dict[str, list[tuple[str, float]]], str], None]
               ) -> tuple[LeagueStatus, bool]:
    """Run the league in a local pool; its status after, and whether Ctrl-C stopped it."""
    from arena.league.local import LeagueRunError, run_league

    try:
        with bad_input():
            summary = run_league(url, name, workers=workers, lease_s=lease_s, progress=show)
    except LeagueRunError as error:
        raise LeagueCommandError(str(error)) from None
    assert summary.status is not None
    return summary.status, summary.interrupted


def _run_broker(url: str, name: str, broker: str, league_id: int, names: dict[int, str],
                show: Callable[[LeagueStatus, dict[str, list[tuple[str, float]]], str], None]
                ) -> tuple[LeagueStatus, bool]:
    """Send the league through Celery; its status after, and whether Ctrl-C stopped it."""
    try:
        from arena.league.celery_app import DistributionError
        from arena.league.dispatch import dispatch_league
    except ImportError as error:
        raise LeagueCommandError(f"--broker needs Celery: pip install 'card-arena[celery]' "
                                 f"({error})") from None
    interrupted = False
    with open_store(url) as store:
        def progress(_counts: Any) -> None:
            """Redraw from the database after each round of the dispatcher."""
            with store.session() as session:
                show(league_status(session, name), standings(session, league_id, names), "")

        try:
            with bad_input():
                dispatch_league(url, name, broker, progress)
        except KeyboardInterrupt:
            interrupted = True
        except DistributionError as error:
            raise LeagueCommandError(" ".join(str(error).split())) from None
        with store.session() as session:
            return league_status(session, name), interrupted


def game_counts(status: LeagueStatus) -> dict[str, tuple[int, int]]:
    """Per game, (matches finished, matches in all)."""
    return {game: (counts["done"] + counts["void"], sum(counts.values()))
            for game, counts in status.by_game.items()}


def print_status(status: LeagueStatus, console: Console) -> None:
    """A league's matches by status, overall and per game, and why matches are void."""
    table = Table(title=f"league {status.name}: {status.done}/{status.total} matches finished",
                  title_justify="left")
    table.add_column("game")
    for column in ("pending", "leased", "done", "void"):
        table.add_column(column, justify="right")
    for game, counts in status.by_game.items():
        table.add_row(game, *(str(counts[column]) for column in
                              ("pending", "leased", "done", "void")))
    console.print(table)
    for match_id, reason in status.void:
        console.print(Text(safe_text(f"void {match_id}: {reason}")))
    console.print(faults_table(status))


def faults_table(status: LeagueStatus) -> Table:
    """Each bot's forfeited deals by reason code, with the league's policy and the void deals
    left out."""
    void = (f"{status.void_deals} deals of {len(status.void)} void matches left out "
            "(VOID_INFRA: the arena failed; no contest)") if status.void else "no deal left out"
    table = Table(title=f"forfeits (scored as {status.forfeit_policy}; {void})",
                  title_justify="left")
    table.add_column("bot")
    table.add_column("forfeits", justify="right")
    for reason in FAULT_REASONS:
        table.add_column(reason, justify="right")
    for bot in status.bots:
        count = status.faults.get(bot) or FaultCount(Counter())
        table.add_row(Text(safe_text(bot)), str(count.forfeits),
                      *(str(count.faults.get(reason, 0)) for reason in FAULT_REASONS))
    return table


def forfeit_line(status: LeagueStatus) -> str:
    """The closing line of a run: the bots that forfeited, with their counts by reason."""
    if not status.forfeiters:
        return "no bot forfeited a deal"
    return "forfeited: " + "; ".join(
        f"{bot} ({status.faults[bot].forfeits} deals: {status.faults[bot].text()})"
        for bot in status.forfeiters)


@league_app.command("status")
def status_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The league.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead.")] = False,
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Show how far a league is: matches pending, leased, done and void, per game."""
    def read(store: Store) -> LeagueStatus:
        """The league's status."""
        with store.session() as session:
            return league_status(session, name)

    status = with_store(db, read)
    if as_json:
        typer.echo(dumps(status.to_dict(), indent=2))
        return
    print_status(status, safe_console(soft_wrap=True))
