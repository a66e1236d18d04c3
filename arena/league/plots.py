"""Rating plots: each bot's mu with a bar of plus and minus 3 sigma, best at the top, as PNG.

Figures are drawn with matplotlib's Agg canvas directly (no pyplot, no display, no global
backend switch), so plotting is safe in workers and threads.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from arena.league.ratings import CONSERVATIVE_Z, Rating
from arena.match.safetext import safe_text

LABEL_LENGTH = 40
"""The most characters of a bot's name shown on the axis."""

ROW_INCHES = 0.4
"""Figure height per bot."""


def axis_label(bot: Hashable) -> str:
    """A bot's name as plain text on an axis: shortened, one line, no mathtext, control and
    format characters escaped."""
    text = safe_text(" ".join(str(bot).split()))
    if len(text) > LABEL_LENGTH:
        text = text[:LABEL_LENGTH - 1] + "…"
    return text.replace("$", r"\$")


def ratings_figure(ratings: Sequence[Rating[Hashable]], title: str) -> Figure:
    """A horizontal chart of the ratings in the order given, the first at the top."""
    figure = Figure(figsize=(7.0, 1.8 + ROW_INCHES * max(len(ratings), 1)), dpi=100,
                    layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.set_title(axis_label(title))
    if not ratings:
        axes.text(0.5, 0.5, "no ratings", ha="center", va="center", transform=axes.transAxes)
        axes.set_axis_off()
        return figure
    rows = list(range(len(ratings)))[::-1]
    axes.errorbar([r.mu for r in ratings], rows,
                  xerr=[CONSERVATIVE_Z * r.sigma for r in ratings],
                  fmt="o", capsize=4, color="tab:blue", ecolor="tab:gray",
                  label=f"μ ± {CONSERVATIVE_Z:g}σ")
    axes.plot([r.conservative for r in ratings], rows, "|", color="tab:red", markersize=14,
              label=f"μ − {CONSERVATIVE_Z:g}σ, which orders the table")
    axes.set_yticks(rows, [axis_label(r.bot) for r in ratings])
    axes.set_ylim(-0.7, len(ratings) - 0.3)
    axes.set_xlabel("rating")
    axes.grid(axis="x", alpha=0.3)
    figure.legend(loc="outside lower center", ncols=2, fontsize="small", frameon=False)
    return figure


def save_ratings_plot(ratings: Sequence[Rating[Hashable]], title: str, path: Path) -> Path:
    """Draw the ratings chart and write it to ``path`` as PNG."""
    ratings_figure(ratings, title).savefig(path, format="png")
    return path
