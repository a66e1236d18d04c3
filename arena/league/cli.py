"""The league commands: ``arena league create|run|status``, ``arena leaderboard`` and
``arena report``.

Every command takes ``--db`` (a SQLite path or a database URL; the default file is under the
user's data directory). Bad input (an unknown bot, game or league, a name taken, an unreachable
database or broker) is one ``error:`` line and exit code 2, with nothing left in the database.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from arena.agents import BotConfigError
from arena.games import GameError, load_game
from arena.games.rng import MAX_SEED
from arena.league.create import ALL_GAMES, LeagueError, LeagueSettings, create_league
from arena.league.progress import LeagueProgress
from arena.league.ratings import Rating, game_ratings, leaderboard, overall
from arena.league.run_match import DEFAULT_LEASE_S
from arena.league.schedule import ScheduleError
from arena.league.status import (
    LeagueStatus,
    find_league,
    league_bots,
    league_languages,
    league_status,
    played_sets,
    standings,
)
from arena.match import MatchError
from arena.match.faults import DEFAULT_STRIKES
from arena.match.timecontrol import (
    DEFAULT_BANK_MS,
    DEFAULT_DECISION_MS,
    DEFAULT_STARTUP_MS,
    TimeControl,
)
from arena.store import League, Store, StoreError, database_url, open_store

BAD_INPUT = 2
"""The exit code of bad input."""

INTERRUPTED_EXIT = 130
"""The exit code of a run stopped by Ctrl-C (resume it by running it again)."""

VOID_EXIT = 1
"""The exit code of a run that ended with void matches."""

REPORTS_DIR = Path("reports")
"""Where ``arena report`` writes, one folder per league, unless told otherwise."""

T = TypeVar("T")


class LeagueCommandError(typer.TyperException):
    """Bad input found by a league command: one line, exit code 2."""

    exit_code = BAD_INPUT


DB_OPTION = typer.Option(
    "--db", metavar="PATH|URL",
    help="The database: a SQLite file path or a URL such as postgresql+psycopg://user@host/db "
         "(default: arena.db under the user's data directory).")

league_app = typer.Typer(
    name="league", no_args_is_help=True, add_completion=False,
    help="Leagues: round robins in duplicate over every game, run here or on Celery workers.")


def store_url_of(db: str | None) -> str:
    """The database URL (password included) for ``--db``, a path or nothing."""
    return database_url(db).render_as_string(hide_password=False)


@contextmanager
def bad_input() -> Iterator[None]:
    """Turn the errors of bad input into one line and exit code 2."""
    try:
        yield
    except (LeagueError, ScheduleError, StoreError, GameError, BotConfigError,
            MatchError) as error:
        raise LeagueCommandError(" ".join(str(error).split())) from None
    except ImportError as error:
        raise LeagueCommandError(f"a package is missing: {error}") from None


def with_store(db: str | None, action: Callable[[Store], T]) -> T:
    """Open the store named by ``--db`` and run ``action`` on it (bad input: one line)."""
    with bad_input(), open_store(store_url_of(db)) as store:
        return action(store)


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
    seed: Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED,
                                      help="The league seed (every deal's seed comes from it).")
                    ] = 0,
    decision_ms: Annotated[int, typer.Option(
        "--decision-ms", min=1, help="Time for each decision, in milliseconds.")
    ] = DEFAULT_DECISION_MS,
    bank_ms: Annotated[int, typer.Option(
        "--bank-ms", min=0, help="Time bank per seat and deal, in milliseconds.")
    ] = DEFAULT_BANK_MS,
    startup_ms: Annotated[int, typer.Option(
        "--startup-ms", min=1, help="Time a bot may take to start listening, in milliseconds.")
    ] = DEFAULT_STARTUP_MS,
    strikes: Annotated[int, typer.Option("--strikes", min=1, help="Faults that forfeit a seat.")
                       ] = DEFAULT_STRIKES,
    replace: Annotated[bool, typer.Option(
        "--replace", help="Delete a league of the same name first, with its results.")] = False,
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Create a league: its bots and every match of its schedule (nothing runs yet)."""
    with bad_input():
        settings = LeagueSettings(TimeControl(decision_ms=decision_ms, bank_ms=bank_ms,
                                              startup_ms=startup_ms), strikes)

    def create(store: Store) -> LeagueStatus:
        """Create the league and read back its status."""
        game_list: str | list[str] = games if games.strip() == ALL_GAMES else [
            game.strip() for game in games.split(",") if game.strip()]
        create_league(store, name, bot, game_list, deals, rounds, seed, settings, replace)
        with store.session() as session:
            return league_status(session, name.strip())

    status = with_store(db, create)
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"league {status.name}: {len(status.bots)} bots "
                  f"({', '.join(status.bots)}), {len(status.games)} games, "
                  f"{status.total} matches; run it with: arena league run {status.name}")


@league_app.command("run")
def run_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The league to run.")],
    workers: Annotated[int, typer.Option(
        "--workers", "-w", min=1, help="Local worker processes (one match each at a time).")
    ] = 2,
    broker: Annotated[str | None, typer.Option(
        "--broker", metavar="URL",
        help="Send the matches through Celery (redis://host:6379/0, amqp://...) to "
             "`arena worker` processes instead of running them here.")] = None,
    lease_s: Annotated[float, typer.Option(
        "--lease-s", min=1.0, help="Lease length in seconds (renewed while a match runs).")
    ] = DEFAULT_LEASE_S,
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Run a league's matches that are not done yet, with a live progress bar.

    Ctrl-C stops it; running it again resumes it: nothing is lost and nothing runs twice.
    """
    url = store_url_of(db)
    console = Console(stderr=True)
    with bad_input(), open_store(url) as store, store.session() as session:
        status = league_status(session, name)
        names = league_bots(session, find_league(session, name))
        league_id = find_league(session, name).id
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
    print_status(status, Console(highlight=False, soft_wrap=True))
    if interrupted:
        console.print(f"interrupted; resume with: arena league run {name}")
        raise typer.Exit(INTERRUPTED_EXIT)
    if status.void:
        raise typer.Exit(VOID_EXIT)


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
        console.print(f"void {match_id}: {reason}")


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
        typer.echo(json.dumps(status.to_dict(), indent=2, ensure_ascii=False))
        return
    print_status(status, Console(highlight=False, soft_wrap=True))


def ratings_tables(store: Store, league: str | None, game: str | None
                   ) -> tuple[dict[str, list[Rating[str]]], list[Rating[str]]]:
    """Per game and overall, the OpenSkill leaderboard of one league's (or every league's)
    finished matches."""
    with store.session() as session:
        leagues: Sequence[League] | None = [find_league(session, league)] if league else None
        played, _ = played_sets(session, leagues, game)
    by_game: dict[str, list[Any]] = {}
    for match, result in played:
        by_game.setdefault(match.game, []).append((match, result))
    tables = {}
    for game_id, sets in by_game.items():
        first = sets[0][1]
        rules = load_game(game_id, first.players, first.params)
        tables[game_id] = game_ratings(rules, [(match.seats, result) for match, result in sets])
    if game is not None and game not in tables:
        raise LeagueError(f"no finished match of {game} in the database")
    everyone = sorted({bot for table in tables.values() for bot in table})
    return ({game_id: leaderboard(table) for game_id, table in tables.items()},
            leaderboard(overall(tables, everyone)))


def rating_table(title: str, ratings: Sequence[Rating[str]]) -> Table:
    """A leaderboard as a rich table: rank, bot, mu, sigma, mu - 3 sigma, contests."""
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("bot")
    for column in ("μ", "σ", "μ − 3σ", "contests"):
        table.add_column(column, justify="right")
    for rank, rating in enumerate(ratings, 1):
        table.add_row(str(rank), rating.bot, f"{rating.mu:.2f}", f"{rating.sigma:.2f}",
                      f"{rating.conservative:.2f}", str(rating.contests))
    return table


def leaderboard_command(
    game: Annotated[str | None, typer.Option(
        "--game", metavar="ID", help="Only this game's table.")] = None,
    league: Annotated[str | None, typer.Option(
        "--league", metavar="NAME", help="Only this league (default: every league).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead.")] = False,
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Show the OpenSkill leaderboards: per game and overall, ordered by μ − 3σ."""
    per_game, total = with_store(db, lambda store: ratings_tables(store, league, game))
    if game is not None:
        per_game = {game: per_game[game]}
    if as_json:
        data: dict[str, Any] = {"games": {game_id: [rating.to_dict() for rating in ratings]
                                          for game_id, ratings in per_game.items()}}
        if game is None:
            data["overall"] = [rating.to_dict() for rating in total]
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        return
    console = Console(highlight=False)
    if game is None:
        console.print(rating_table("overall (mean of the per-game ratings)", total))
    for game_id, ratings in per_game.items():
        console.print(rating_table(game_id, ratings))


def report_command(
    name: Annotated[str, typer.Argument(metavar="LEAGUE", help="The league.")],
    out: Annotated[Path | None, typer.Option(
        "--out", metavar="DIR", file_okay=False,
        help="Where to write report.md, report.html and the plots (default: reports/LEAGUE).")
    ] = None,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print only where the report was written.")] = False,
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Write a league's report (ratings, comparisons, decision times, plots) and print it."""
    from arena.league.report import build_report, render_terminal, write_report

    def load(store: Store) -> tuple[list[Any], dict[int, str], dict[str, str], str]:
        """The league's played sets, bot names and languages."""
        with store.session() as session:
            league = find_league(session, name)
            played, _ = played_sets(session, [league])
            return (played, league_bots(session, league), league_languages(session, league),
                    league.name)

    played, names, languages, league_name = with_store(db, load)
    report = build_report(played, league_name, list(names.values()), languages=languages)
    console = Console(highlight=False)
    if not quiet:
        for renderable in render_terminal(report):
            console.print(renderable)
    folder = out or REPORTS_DIR / league_name
    try:
        written = write_report(report, folder)
    except OSError as error:
        raise LeagueCommandError(f"cannot write the report to {folder}: "
                                 f"{error.strerror or error}") from None
    html = next((path for path in written if path.suffix == ".html"), folder)
    console.print(f"report written to {html} (and report.md, plots beside it)", soft_wrap=True)
