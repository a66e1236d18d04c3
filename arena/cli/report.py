"""``arena report``: a league's report written to files and printed as rich tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from arena.cli.console import safe_console
from arena.cli.store import DB_OPTION, LeagueCommandError, with_store
from arena.league.create import league_policy
from arena.league.forfeits import ForfeitPolicy
from arena.league.report import LeagueReport, bot_name, sections
from arena.league.status import (
    LeftOut,
    ScoredSet,
    find_league,
    league_bots,
    league_languages,
    left_out,
    scored_sets,
)
from arena.store import Store

REPORTS_DIR = Path("reports")
"""Where ``arena report`` writes, one folder per league, unless told otherwise."""

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
    from arena.league.report import build_report, write_report

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


def render_terminal(report: LeagueReport[Any]) -> list[RenderableType]:
    """Rich tables, a heading before each section (names are never read as markup)."""
    result: list[RenderableType] = [Text(f"League report: {bot_name(report.name)}",
                                         style="bold underline")]
    for section in sections(report):
        result.append(Text(f"\n{section.heading}", style="bold"))
        for view in section.tables:
            table = Table(title=Text(view.title), title_justify="left",
                          caption=Text(view.note) if view.note else None, caption_justify="left")
            for column in view.columns:
                table.add_column(Text(column.text), justify="right" if column.number else "left")
            for row in view.rows:
                table.add_row(*(Text(cell.text, style="bold" if cell.strong else "")
                                for cell in row))
            result.append(table)
    return result
