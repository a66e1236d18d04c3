"""A finished match as one self-contained HTML page: the web replay without a server.

The page holds every frame of the deal in the full view and in each seat's view, drawn with
the match page's own templates (``replay_frame.html``) from the same frames
(``frames.match_frames``); its style sheet and its script are inline, and it names no other
file or address, so it opens from a file, from an e-mail or inside a notebook. It shows what the
service's replay shows anyone for a finished match: the seed, every view, and no seat's logs
(``privacy.withhold_logs``), unless ``notes_of`` names the seats whose owner is looking.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment
from markupsafe import Markup

from arena.match.privacy import withhold_logs
from arena.match.record import MatchRecord
from arena.server.web.frames import Frame, View, match_frames
from arena.server.web.rendering import HERE, make_templates

PAGE = "replay_page.html"
"""The template of the page."""


@dataclass(frozen=True)
class ViewFrames:
    """One view of the deal: its name in the page, its title, the seat (None: full) and frames."""

    name: str
    title: str
    seat: View
    frames: tuple[Frame, ...]


@dataclass(frozen=True)
class ResultLine:
    """One seat's player, return and reason code."""

    seat: int
    player: str
    value: float
    reason: str


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The web pages' templates with their helpers, printing values as the pages do."""
    return make_templates().env


def shown_record(record: MatchRecord, notes_of: Collection[int] = ()) -> MatchRecord:
    """The record as the service's replay shows it: logs (debug notes, captured output, fault
    texts) of every seat but ``notes_of`` withheld."""
    for seat in notes_of:
        if not 0 <= seat < record.players:
            raise ValueError(f"no seat {seat}: this match has seats 0 to {record.players - 1}")
    return MatchRecord.from_dict(withhold_logs(record.to_dict(), frozenset(notes_of)))


def replay_views(record: MatchRecord) -> list[ViewFrames]:
    """The frames of the full view, then of each seat's view."""
    views = [ViewFrames("full", "Full (every hand)", None, tuple(match_frames(record, None)))]
    views += [ViewFrames(str(seat), f"Seat {seat}", seat, tuple(match_frames(record, seat)))
              for seat in range(record.players)]
    return views


def result_lines(record: MatchRecord) -> list[ResultLine]:
    """Each seat's player, return and reason (OK for records without the runner's report)."""
    seats = record.conduct.seats if record.conduct is not None else ()
    return [ResultLine(seat, record.policies[seat], record.returns[seat],
                       seats[seat].reason if seat < len(seats) else "OK")
            for seat in range(record.players)]


def replay_page(record: MatchRecord, notes_of: Collection[int] = (),
                title: str | None = None) -> str:
    """The self-contained HTML page replaying a finished match."""
    record = shown_record(record, notes_of)
    views = replay_views(record)
    static = HERE / "static"
    return environment().get_template(PAGE).render(
        record=record, views=views, last=len(views[0].frames) - 1,
        results=result_lines(record), title=title or f"Replay of a {record.game} match",
        style=Markup(_inline_text(static / "style.css")),
        script=Markup(_inline_text(static / "standalone.js")))


def _inline_text(path: Path) -> str:
    """A static file's text, made safe to sit inside a ``<style>`` or ``<script>`` element."""
    return path.read_text("utf-8").replace("</", "<\\/")


def write_replay_page(record: MatchRecord, path: Path, notes_of: Collection[int] = ()) -> Path:
    """Write the replay page to ``path`` (an OSError's text as a ``ValueError``)."""
    try:
        path.write_text(replay_page(record, notes_of), encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot write the replay page {str(path)!r}: "
                         f"{error.strerror or error}") from None
    return path
