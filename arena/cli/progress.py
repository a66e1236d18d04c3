"""A live view of a running league: a bar of matches done, the rate and the ETA (from the
matches finished by this run), and the current leader of every game (by mean return per deal
so far).

On a terminal it redraws in place; written to a pipe or file it prints the final view once.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import timedelta
from types import TracebackType

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from arena.match.safetext import safe_text

Leaders = Mapping[str, Sequence[tuple[str, float]]]
"""Per game, (bot, mean return per deal) best first."""


class RateColumn(ProgressColumn):
    """Matches per minute since the run started, and the time left at that rate."""

    def render(self, task: Task) -> Text:
        """``12.3/min ETA 0:04:10``, or dashes before the first match of this run."""
        rate = task.fields.get("rate")
        if not rate:
            return Text("–/min ETA –", style="progress.data.speed")
        left = max((task.total or 0) - task.completed, 0) / rate
        eta = str(timedelta(seconds=round(left)))
        return Text(f"{rate * 60:.1f}/min ETA {eta}", style="progress.data.speed")


class LeagueProgress:
    """The live view of one league run; ``update`` after each finished match."""

    def __init__(self, name: str, total: int, done: int, games: Sequence[str],
                 console: Console | None = None) -> None:
        """A view of ``total`` matches of which ``done`` are finished already."""
        self.console = console or Console(stderr=True)
        self.games = list(games)
        self.game_totals: dict[str, tuple[int, int]] = {}
        self.leaders: Leaders = {}
        self.note = ""
        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(bar_width=24),
                            MofNCompleteColumn(), TimeElapsedColumn(), RateColumn(),
                            console=self.console)
        self.task = self.bar.add_task(f"league {escape(safe_text(name))}", total=total,
                                      completed=done, rate=None)
        self.started = time.monotonic()
        self.first_done = done
        self.live = Live(self._view(), console=self.console, refresh_per_second=4,
                         transient=False, redirect_stdout=False, redirect_stderr=False)

    def __enter__(self) -> LeagueProgress:
        """Start drawing."""
        self.live.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """Draw the final view and stop."""
        self.live.update(self._view(), refresh=True)
        self.live.__exit__(kind, error, trace)
        if not self.console.is_terminal:
            self.console.line()

    def update(self, done: int, leaders: Leaders | None = None,
               game_totals: Mapping[str, tuple[int, int]] | None = None,
               note: str | None = None) -> None:
        """Show ``done`` matches finished, and the leaders and per-game counts when given."""
        elapsed = time.monotonic() - self.started
        ran = done - self.first_done
        self.bar.update(self.task, completed=done,
                        rate=ran / elapsed if ran > 0 and elapsed > 0 else None)
        if leaders is not None:
            self.leaders = leaders
        if game_totals is not None:
            self.game_totals = dict(game_totals)
        if note is not None:
            self.note = note
        self.live.update(self._view())

    def _view(self) -> RenderableType:
        """The bar, the note, and the leaders table."""
        parts: list[RenderableType] = [self.bar]
        if self.note:
            parts.append(Text(self.note, style="yellow"))
        if self.leaders or self.game_totals:
            parts.append(leaders_table(self.games, self.leaders, self.game_totals))
        return Group(*parts)


def leaders_table(games: Sequence[str], leaders: Leaders,
                  game_totals: Mapping[str, tuple[int, int]]) -> Table:
    """One row per game: matches done of total, the leader and its mean return per deal."""
    table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
    table.add_column("game")
    table.add_column("done", justify="right")
    table.add_column("leader")
    table.add_column("mean/deal", justify="right")
    for game in games:
        done, total = game_totals.get(game, (0, 0))
        ranked = leaders.get(game) or []
        leader, mean = ranked[0] if ranked else ("–", None)
        table.add_row(game, f"{done}/{total}", Text(safe_text(leader)),
                      "" if mean is None else f"{mean:+.2f}")
    return table
