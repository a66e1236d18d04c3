"""The league commands: ``arena league create|run|status``, ``arena leaderboard`` and
``arena report``.

Every command takes ``--db`` (a SQLite path or a database URL; the default file is under the
user's data directory). Bad input (an unknown bot, game or league, a name taken, an unreachable
database or broker) is one ``error:`` line and exit code 2, with nothing left in the database.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.agents import BotConfigError
from arena.cli_options import (
    BankMsOption,
    DecisionMsOption,
    ForfeitPolicyOption,
    StartupMsOption,
    StrikesOption,
)
from arena.games import GameError
from arena.games.rng import MAX_SEED
from arena.league import numbers
from arena.league.boards import leaderboards
from arena.league.create import (
    ALL_GAMES,
    LeagueError,
    LeagueSettings,
    create_league,
    league_policy,
    parse_forfeit_policy,
)
from arena.league.forfeits import DEFAULT_POLICY, FAULT_REASONS, FaultCount, ForfeitPolicy
from arena.league.progress import LeagueProgress
from arena.league.ratings import Rating
from arena.league.run_match import DEFAULT_LEASE_S
from arena.league.schedule import ScheduleError
from arena.league.status import (
    LeagueStatus,
    LeftOut,
    ScoredSet,
    find_league,
    league_bots,
    league_languages,
    league_status,
    left_out,
    scored_sets,
    standings,
)
from arena.match import MatchError
from arena.match.faults import DEFAULT_STRIKES
from arena.match.safeconsole import safe_console
from arena.match.safetext import dumps, safe_text
from arena.match.timecontrol import (
    DEFAULT_BANK_MS,
    DEFAULT_DECISION_MS,
    DEFAULT_STARTUP_MS,
    TimeControl,
)
from arena.store import Store, StoreError, database_url, open_store

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
    seed: Annotated[int | None, typer.Option(
        "--seed", min=0, max=MAX_SEED,
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
    console.print(f"league {status.name}: {len(status.bots)} bots "
                  f"({', '.join(status.bots)}), {len(status.games)} games, "
                  f"{status.total} matches, {seeds}, forfeits scored as "
                  f"{settings.forfeit_policy.value}; run it with: arena league run {status.name}")


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
    output = safe_console(soft_wrap=True)
    print_status(status, output)
    output.print(Text(safe_text(forfeit_line(status)),
                      style="red" if status.forfeiters else ""))
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


def ratings_tables(store: Store, league: str | None, game: str | None
                   ) -> tuple[dict[str, list[Rating[str]]], list[Rating[str]]]:
    """Per game and overall, the OpenSkill leaderboard of one league's (or every league's)
    finished matches."""
    boards = leaderboards(store, league, game)
    return boards.per_game, boards.overall


def rating_table(title: str, ratings: Sequence[Rating[str]],
                 faults: Mapping[str, FaultCount] | None = None, note: str = "") -> Table:
    """A leaderboard as a rich table: rank, bot, mu, sigma, mu - 3 sigma, contests, and each
    bot's forfeited deals by reason code; ``note`` below it."""
    table = Table(title=title, title_justify="left",
                  caption=Text(note) if note else None, caption_justify="left")
    table.add_column("#", justify="right")
    table.add_column("bot")
    for column in ("μ", "σ", "μ − 3σ", "contests"):
        table.add_column(column, justify="right")
    table.add_column("forfeits")
    for rank, rating in enumerate(ratings, 1):
        count = (faults or {}).get(rating.bot)
        table.add_row(str(rank), Text(safe_text(rating.bot)), numbers.fixed(rating.mu),
                      numbers.fixed(rating.sigma),
                      numbers.fixed(rating.conservative), str(rating.contests),
                      Text(count.text() if count else "–",
                           style="red" if count and count.forfeits else ""))
    return table


def leaderboard_command(
    game: Annotated[str | None, typer.Option(
        "--game", metavar="ID", help="Only this game's table.")] = None,
    league: Annotated[str | None, typer.Option(
        "--league", metavar="NAME", help="Only this league (default: every league).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead.")] = False,
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Show the OpenSkill leaderboards: per game and overall, ordered by μ − 3σ, with each
    bot's forfeited deals by reason code."""
    boards = with_store(db, lambda store: leaderboards(store, league, game))
    if as_json:
        typer.echo(dumps(boards.to_dict(game), indent=2, default=str))
        return
    console = safe_console()
    if game is None:
        console.print(rating_table("overall (mean of the per-game ratings)", boards.overall,
                                   boards.overall_faults(), boards.note(None)))
    for game_id, ratings in boards.per_game.items():
        if game is None or game_id == game:
            console.print(rating_table(game_id, ratings, boards.faults.get(game_id),
                                       boards.note(game_id)))


def report_command(
    name: Annotated[str, typer.Argument(metavar="LEAGUE", help="The league.")],
    out: Annotated[Path | None, typer.Option(
        "--out", metavar="DIR", file_okay=False,
        help="Where to write report.md, report.html and the plots (default: reports/LEAGUE).")
    ] = None,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print only where the report was written.")] = False,
    correction: Annotated[str, typer.Option(
        "--correction", metavar="METHOD",
        help="The multiple-comparison correction over the report's pair tests: holm "
             "(default), bonferroni, fdr_bh (Benjamini-Hochberg) or none.")] = "holm",
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Write a league's report (ratings, comparisons, decision times, plots) and print it."""
    from arena.league.compare import check_correction
    from arena.league.report import build_report, render_terminal, write_report

    try:
        check_correction(correction)
    except ValueError as error:
        raise LeagueCommandError(str(error)) from None

    def load(store: Store) -> tuple[list[ScoredSet], dict[int, str], dict[str, str], str,
                                    dict[str, LeftOut], ForfeitPolicy]:
        """The league's played sets, bot names, languages, void sets and forfeit policy."""
        with store.session() as session:
            league = find_league(session, name)
            played, _ = scored_sets(session, [league])
            return (played, league_bots(session, league), league_languages(session, league),
                    league.name, left_out(session, [league.id]),
                    league_policy(league.settings or {}))

    played, names, languages, league_name, void, policy = with_store(db, load)
    report = build_report(
        [(entry.match, entry.result) for entry in played], league_name, list(names.values()),
        languages=languages, policy=policy, correction=correction,
        faults=[fault for entry in played for fault in entry.faults()],
        void={game: (out.sets, out.deals) for game, out in void.items()})
    console = safe_console()
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
