"""The database of the league commands: ``--db``, opening it, and bad input as one line."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import typer

from arena.bots import BotConfigError
from arena.games import GameError
from arena.league.create import LeagueError
from arena.league.schedule import ScheduleError
from arena.match import MatchError
from arena.store import Store, StoreError, database_url, open_store

BAD_INPUT = 2
"""The exit code of bad input."""

T = TypeVar("T")


class LeagueCommandError(typer.TyperException):
    """Bad input found by a league command: one line, exit code 2."""

    exit_code = BAD_INPUT


DB_OPTION = typer.Option(
    "--db", metavar="PATH|URL",
    help="The database: a SQLite file path or a URL such as postgresql+psycopg://user@host/db "
         "(default: arena.db under the user's data directory).")


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
