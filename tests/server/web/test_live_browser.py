"""Live pages and the client-side replay in a real headless Chromium (Debian's, through
Playwright): the leaderboard updates while matches finish, the replay steps on the client
without losing a key press, every table fits a phone, and a match in play shows the public
view only, updating as it is played."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from arena.match.record import MatchRecord
from arena.server.web.frames import match_frames
from tests.server.web.conftest import WebStore
from tests.server.web.live_store import feed, hidden_codes, partly_played, running_match
from tests.server.web.serving import web_server
from tests.server.web.test_browser import chromium_path, page, server  # noqa: F401

WAIT_MS = 60_000
"""The longest a page may take to show a change (never reached when it works)."""

STAYED = "window.__stayed = true"
"""Marks the page's window: a reload would forget it."""


def record_of(data: dict[str, object]) -> MatchRecord:
    """A stored deal record as a ``MatchRecord``."""
    return MatchRecord.from_dict({key: value for key, value in data.items()
                                  if key not in ("rotation", "entrants")})


def test_the_leaderboard_updates_while_matches_finish(
        page: Any, tmp_path: Path) -> None:  # noqa: F811
    """With one of two matches played, the home page lists one game; the rest of the league
    runs (a real `arena league run`), and the page lists both without a reload."""
    url = partly_played(tmp_path)
    with web_server(url) as base:
        page.goto(f"{base}/")
        games = page.locator("main a[href^='/games/']")
        assert games.count() == 1
        page.evaluate(STAYED)
        arena = Path(sys.executable).with_name("arena")
        done = subprocess.run([str(arena), "league", "run", "growing", "--db", url,
                               "--workers", "1"], capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        page.wait_for_function(
            "document.querySelectorAll(\"main a[href^='/games/']\").length === 2",
            timeout=WAIT_MS)
        assert page.evaluate("window.__stayed") is True
        page.goto("about:blank")  # closes the event stream before the server stops


def test_the_replay_steps_fast_on_the_client(page: Any, server: str,  # noqa: F811
                                             web_store: WebStore) -> None:
    """Twenty-five quick presses of → land on step 25 (none lost, none a page load), showing
    that step's label, the stock and each seat's running card points; End and ← follow."""
    frames = match_frames(record_of(web_store.records["briscola"]), None)
    page.goto(f"{server}/matches/{web_store.matches['briscola']}")
    page.evaluate(STAYED)
    for _ in range(25):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "document.querySelector('#replay').dataset.stepsReady === 'true' && "
        "document.querySelector('nav.stepper').dataset.step === '25'", timeout=WAIT_MS)
    frame = frames[25]
    assert page.locator("[data-step-label]").inner_text() == f"Hand {frame.hand} · {frame.label}"
    assert page.locator("[data-stock]").inner_text() == str(frame.stock)
    assert page.locator("[data-points]").all_inner_texts() == [
        str(seat.points) for seat in frame.seats]
    assert page.evaluate("window.__stayed") is True
    assert "step=25" in page.url
    page.keyboard.press("End")
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    last = len(frames) - 1
    page.wait_for_function(
        f"document.querySelector('nav.stepper').dataset.step === '{last - 3}'", timeout=WAIT_MS)
    assert page.locator("[data-stock]").inner_text() == str(frames[last - 3].stock)


TABLES_PAST_THE_EDGE = (
    "Array.from(document.querySelectorAll('main table')).filter(t => "
    "t.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 || "
    "t.scrollWidth > t.clientWidth + 0.5 || "
    "(t.parentElement.scrollWidth > t.parentElement.clientWidth + 0.5))"
    ".map(t => t.caption ? t.caption.textContent : t.outerHTML.slice(0, 80))")
"""A script listing the tables of the page that run past the screen's edge or scroll."""


def test_every_table_of_the_replay_fits_a_phone(page: Any, server: str,  # noqa: F811
                                                web_store: WebStore) -> None:
    """At 390 px wide no table of a match page runs past the screen's edge or scrolls: every
    column is in view, on the step loaded and on a step the script swapped in."""
    page.set_viewport_size({"width": 390, "height": 844})
    check = TABLES_PAST_THE_EDGE
    for game in ("briscola", "scopa"):
        page.goto(f"{server}/matches/{web_store.matches[game]}?view=full&step=9")
        assert page.locator("main table").count() >= 2
        assert page.evaluate(check) == [], game
        page.wait_for_function("document.querySelector('#replay').dataset.stepsReady",
                               timeout=WAIT_MS)
        page.keyboard.press("ArrowRight")
        page.wait_for_function("document.querySelector('nav.stepper').dataset.step === '10'",
                               timeout=WAIT_MS)
        assert page.evaluate(check) == [], game
        assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_match_in_play_shows_the_public_view_as_it_goes(
        page: Any, tmp_path: Path) -> None:  # noqa: F811
    """A spectator's page of a running match draws the board, the plays and card backs, never
    a card of a hand or the stock; a new action shows up without a reload; the board fits a
    phone."""
    running = running_match(tmp_path, 5)
    with web_server(running.url) as base:
        page.goto(f"{base}/matches/{running.match_id}")
        events = page.locator("[data-live-deal='0'] .live-events li")
        before = events.count()
        assert before > 0
        shown = set(page.eval_on_selector_all("[data-card]", "cs => cs.map(c => c.dataset.card)"))
        assert shown and not shown & hidden_codes(running.seed, 5)
        assert page.locator(".live .card.back").count() > 0
        page.evaluate(STAYED)
        threading.Thread(target=feed, args=(running.url, running.match_id, running.seed, 9),
                         daemon=True).start()
        page.wait_for_function(
            "document.querySelectorAll(\"[data-live-deal='0'] .live-events li\").length"
            f" > {before}",
            timeout=WAIT_MS)
        assert page.evaluate("window.__stayed") is True
        shown = set(page.eval_on_selector_all("[data-card]", "cs => cs.map(c => c.dataset.card)"))
        assert not shown & hidden_codes(running.seed, 9)
        assert not set(page.content().split()) & {f'data-card="{code}"'
                                                   for code in hidden_codes(running.seed, 9)}
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.locator("[data-live-board='0'] table").count() >= 1
        assert page.evaluate(TABLES_PAST_THE_EDGE) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.goto("about:blank")  # closes the event stream before the server stops

