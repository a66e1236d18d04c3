"""A bot's rating history: its overall rating after each set it played, as an inline SVG.

The sets are rated in the order ``arena leaderboard`` rates them (league by league, schedule
order); after each set the bot took part in, its overall rating is the mean of its per-game
ratings so far over every game of the sets (the prior for a game not yet rated), as in the
overall table, whose numbers the last point equals.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from arena.games import Game, load_game
from arena.league.forfeits import DEFAULT_POLICY, ForfeitPolicy
from arena.league.ratings import (
    CONSERVATIVE_Z,
    Rating,
    default_model,
    overall,
    set_outcomes,
    update,
)
from arena.league.status import PlayedSet


@dataclass(frozen=True)
class HistoryPoint:
    """The bot's overall rating after one of its sets, and that set's game."""

    game: str
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """mu - 3 sigma."""
        return self.mu - CONSERVATIVE_Z * self.sigma


def rating_history(played: Iterable[PlayedSet], bots: Sequence[str],
                   policies: Sequence[ForfeitPolicy] = ()) -> list[HistoryPoint]:
    """The overall rating of the bot known by any of ``bots`` after each set it played
    (``policies[i]``: the forfeit policy of set ``i``'s league, ``loss`` where not given)."""
    model = default_model()
    played = list(played)
    tables: dict[str, dict[str, Rating[str]]] = {match.game: {} for match, _ in played}
    rules: dict[tuple[str, int], Game] = {}
    mine = set(bots)
    points = []
    for index, (match, result) in enumerate(played):
        policy = policies[index] if index < len(policies) else DEFAULT_POLICY
        key = (result.game, result.players)
        game = rules.get(key) or rules.setdefault(
            key, load_game(result.game, result.players, result.params))
        table = tables[match.game]
        for outcome in set_outcomes(game, match.seats, result, policy):
            update(table, outcome, model)
        present = mine.intersection(match.seats)
        if present:
            bot = sorted(present)[0]
            rating = overall(tables, [bot], model)[bot]
            points.append(HistoryPoint(match.game, rating.mu, rating.sigma))
    return points


def history_svg(points: Sequence[HistoryPoint], title: str) -> str:
    """The history as an SVG element: mu with a band of plus and minus 3 sigma."""
    figure = Figure(figsize=(7.0, 3.2), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.set_title(title.replace("$", r"\$"))
    if points:
        steps = list(range(1, len(points) + 1))
        mus = [point.mu for point in points]
        axes.fill_between(steps, [point.mu - CONSERVATIVE_Z * point.sigma for point in points],
                          [point.mu + CONSERVATIVE_Z * point.sigma for point in points],
                          color="tab:blue", alpha=0.15, label=f"μ ± {CONSERVATIVE_Z:g}σ")
        axes.plot(steps, mus, marker="o", markersize=3, color="tab:blue", label="μ")
        axes.plot(steps, [point.conservative for point in points], color="tab:red",
                  linestyle="--", label=f"μ − {CONSERVATIVE_Z:g}σ")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel("sets played")
        axes.set_ylabel("overall rating")
        axes.grid(alpha=0.3)
        axes.legend(loc="lower right", fontsize="small")
    else:
        axes.text(0.5, 0.5, "no finished set yet", ha="center", va="center",
                  transform=axes.transAxes)
        axes.set_axis_off()
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    text = buffer.getvalue()
    return text[text.index("<svg"):]
