"""``arena leaderboard``: the OpenSkill leaderboards, per game and overall, with each bot's
forfeited deals by reason code."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from arena.cli.console import safe_console
from arena.cli.store import DB_OPTION, with_store
from arena.games import get_spec
from arena.league import numbers
from arena.league.boards import leaderboards
from arena.league.forfeits import FaultCount
from arena.league.ratings import Rating
from arena.match.safetext import dumps, safe_text


def rating_table(title: str, ratings: Sequence[Rating[str]],
                 faults: Mapping[str, FaultCount] | None = None, note: str = "",
                 sets: Mapping[str, int] | None = None) -> Table:
    """A leaderboard as a rich table: rank, bot, mu, sigma, mu - 3 sigma, contests, the sets
    each rating rests on (when given), and each bot's forfeited deals by reason code;
    ``note`` below it."""
    table = Table(title=title, title_justify="left",
                  caption=Text(note) if note else None, caption_justify="left")
    table.add_column("#", justify="right")
    table.add_column("bot")
    for column in ("μ", "σ", "μ − 3σ", "contests", *(("sets",) if sets is not None else ())):
        table.add_column(column, justify="right")
    table.add_column("forfeits")
    for rank, rating in enumerate(ratings, 1):
        count = (faults or {}).get(rating.bot)
        table.add_row(str(rank), Text(safe_text(rating.bot)), numbers.fixed(rating.mu),
                      numbers.fixed(rating.sigma),
                      numbers.fixed(rating.conservative), str(rating.contests),
                      *((str(sets.get(rating.bot, 0)),) if sets is not None else ()),
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
    if game is not None:
        get_spec(game)  # an unknown game id is bad input, not a game without results
    boards = with_store(db, lambda store: leaderboards(store, league, game))
    if as_json:
        typer.echo(dumps(boards.to_dict(game), indent=2, default=str))
        return
    console = safe_console()
    if game is None:
        console.print(rating_table("overall (mean of the per-game ratings)", boards.overall,
                                   boards.overall_faults(), boards.note(None),
                                   boards.set_counts(None)))
    for game_id, ratings in boards.per_game.items():
        if game is None or game_id == game:
            console.print(rating_table(game_id, ratings, boards.faults.get(game_id),
                                       boards.note(game_id), boards.set_counts(game_id)))
