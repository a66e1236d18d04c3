"""The self-contained replay page: no outside address, every frame of every view, drawn from
the web replay's frames, and the service's rules for what a finished match shows."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

import arena
from arena.match import MatchRecord
from arena.notebook import PlayedRecord
from arena.server.web.frames import match_frames
from tests.notebook.players import NOTE, NoteBot, raises

OUTSIDE = re.compile(r"""(?:src|href|action|srcset|poster)\s*=\s*["']?\s*(?!#)[^"'\s>]""",
                     re.IGNORECASE)
"""An attribute that would load or link anything but a place in the page itself."""

VIEW_START = re.compile(r'<div data-view="([^"]+)"[^>]*>')
FRAME_START = re.compile(r'<div data-frame="(\d+)">')


@pytest.fixture(scope="module")
def played() -> PlayedRecord:
    """A deal of Briscola with the note-leaving bot and a player that crashes."""
    with pytest.warns(UserWarning):
        return arena.play("briscola", [NoteBot, raises], seed=21, hands=2)


def views_of(page: str) -> dict[str, list[tuple[int, str]]]:
    """The page's frames by view: (index, markup) in order."""
    replay = page.split('<section id="replay"', 1)[1].rsplit("</section>", 1)[0]
    views = VIEW_START.split(replay)[1:]
    found = {}
    for name, block in zip(views[::2], views[1::2], strict=True):
        frames = FRAME_START.split(block)[1:]
        found[name] = [(int(index), body) for index, body in zip(frames[::2], frames[1::2],
                                                                 strict=True)]
    return found


def labels_of(markup: str) -> str:
    """The step label of a frame's markup, as text."""
    found = re.search(r"data-step-label>(.*?)</p>", markup, re.DOTALL)
    assert found is not None
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def test_the_page_is_self_contained(played: PlayedRecord) -> None:
    """No address outside the page (no http(s), no other file), the style and the script
    inline."""
    page = played.html()
    assert OUTSIDE.search(page) is None, OUTSIDE.search(page)
    assert "http://" not in page and "https://" not in page
    assert "<link" not in page and "<script src" not in page and "@import" not in page
    assert page.count("<style>") == 1 and page.count("<script>") == 1
    assert "--line" in page and "data-step-link" in page


def test_the_page_holds_every_frame_of_every_view(played: PlayedRecord) -> None:
    """The full view and each seat's, each with one frame per step, labelled as the web
    replay labels it and drawing the cards its frame shows."""
    views = views_of(played.html())
    assert list(views) == ["full", "0", "1"]
    for name, frames in views.items():
        seat = None if name == "full" else int(name)
        expected = match_frames(played, seat)
        assert [index for index, _ in frames] == list(range(len(played.actions) + 1))
        for (_, markup), frame in zip(frames, expected, strict=True):
            assert labels_of(markup) == f"Hand {frame.hand} · {frame.label}"
            drawn = re.findall(r'data-card="([^"]+)"', markup)
            assert sorted(drawn) == sorted(card.code for card in frame.shown_cards())


def test_a_seat_view_draws_no_card_the_seat_cannot_see(played: PlayedRecord) -> None:
    """In seat 0's view of the deal, the other hand is all backs; in the full view, faces."""
    views = views_of(played.html())
    deal_full, deal_seat = views["full"][0][1], views["0"][0][1]
    seat_one = re.compile(r'aria-labelledby="[^"]*seat-1">(.*?)</section>', re.DOTALL)
    full_hand = seat_one.search(deal_full)
    seen_hand = seat_one.search(deal_seat)
    assert full_hand is not None and seen_hand is not None
    assert len(re.findall(r"data-card=", full_hand.group(1))) == 3
    assert "data-card=" not in seen_hand.group(1)
    assert seen_hand.group(1).count("card back") == 3


def test_logs_are_withheld_as_the_service_withholds_them(played: PlayedRecord) -> None:
    """As for anyone looking at a finished match in the service: no seat's debug notes or
    captured output; the seat's owner (``notes_of``) sees its own notes."""
    assert played.conduct is not None
    assert "this player always fails" in played.conduct.seats[1].stderr
    page = played.html()
    assert NOTE not in page and "Traceback" not in page and "always fails" not in page
    mine = played.html(notes_of=[0])
    assert NOTE in html.unescape(mine)
    assert "always fails" not in mine
    with pytest.raises(ValueError, match="no seat 2"):
        played.html(notes_of=[2])


def test_the_seed_and_results_are_shown(played: PlayedRecord) -> None:
    """The finished match's seed, each seat's player, return and reason code."""
    page = html.unescape(played.html())
    assert "seed 21 (given: not secret)" in page
    assert "NoteBot (callable)" in page and "raises (callable)" in page
    assert "CRASH" in page


def test_in_jupyter_the_record_is_the_page_in_a_frame(played: PlayedRecord) -> None:
    """``_repr_html_`` is an iframe whose ``srcdoc`` is the whole page."""
    shown = played._repr_html_()
    assert shown.startswith("<iframe srcdoc=\"") and shown.endswith("</iframe>")
    document = html.unescape(shown.split('srcdoc="', 1)[1].split('" title=', 1)[0])
    assert document == played.html()


def test_save_html_and_a_loaded_record(played: PlayedRecord, tmp_path: Path) -> None:
    """The page of a record read back from its JSON is the same page."""
    path = played.save_html(tmp_path / "replay.html")
    again = PlayedRecord.of(MatchRecord.from_json(played.to_json()))
    assert path.read_text("utf-8") == again.html()
    with pytest.raises(ValueError, match="cannot write the replay page"):
        played.save_html(tmp_path / "missing" / "replay.html")
