"""The web replay's frames carry the debug note a bot sent with each decision, escaped, in the
full view and the bot's own seat's view; the public pages, read for nobody, withhold it."""

from __future__ import annotations

import copy
import urllib.request
from pathlib import Path

from arena.league.create import create_league
from arena.league.local import run_league
from arena.match.record import MatchRecord
from arena.server.web.frames import match_frames
from arena.store import Match, MatchRecordRow, open_store

from .serving import web_server

NOTE = "\x1b]0;owned\x07<script>alert(1)</script>\u202e"
"""A debug note that would retitle a terminal, run a script in a page and flip the text."""

ESCAPED = "\\x1b]0;owned\\x07<script>alert(1)</script>\\u202e"
"""The note with its control and format characters escaped (the page's autoescaping makes
the rest HTML)."""


def _store_with_a_note(folder: Path) -> tuple[str, str]:
    """A store whose one briscola match has a debug note from seat 0 at the first decision;
    its URL and the match id."""
    url = f"sqlite:///{folder / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, "notes", ["heuristic", "random"], games=["briscola"], deals=1)
    assert run_league(url, "notes", workers=1, reuse_bots=False).status is not None
    with open_store(url) as store, store.session() as session:
        match = session.query(Match).order_by(Match.id).first()
        assert match is not None
        row = session.query(MatchRecordRow).filter_by(match_id=match.id, deal=0).one()
        record = copy.deepcopy(row.record)
        record["debug"] = [{"decision": 0, "seat": 0, "text": NOTE}]
        row.record = record
        session.commit()
        return url, match.id


def _page(base: str, match_id: str, view: str, step: int) -> str:
    """The match page at a step of the first deal in a view."""
    address = f"{base}/matches/{match_id}?view={view}&deal=0&step={step}"
    with urllib.request.urlopen(address, timeout=30) as response:
        return str(response.read().decode("utf-8"))


def test_a_bots_note_is_on_its_decisions_frame_escaped_for_its_own_view(
        tmp_path: Path) -> None:
    url, match_id = _store_with_a_note(tmp_path)
    with open_store(url) as store, store.session() as session:
        data = session.query(MatchRecordRow).filter_by(match_id=match_id, deal=0).one().record
    record = MatchRecord.from_dict(data)
    full, own, other = (match_frames(record, view) for view in (None, 0, 1))
    assert full[1].bot_note == own[1].bot_note == ESCAPED
    assert other[1].bot_note == ""
    assert all(frame.bot_note == "" for frames in (full, own) for frame in frames[2:])


def test_the_public_replay_page_withholds_the_notes(tmp_path: Path) -> None:
    url, match_id = _store_with_a_note(tmp_path)
    with web_server(url) as base:
        page = _page(base, match_id, "full", 1)
    assert "Step <strong>1</strong>" in page
    assert 'class="bot-note"' not in page and "owned" not in page
