"""Playing against the bots in a real headless Chromium (Debian's, through Playwright) on a
real uvicorn: ann signs in, opens a briscola table against random, plays the whole deal with
the mouse and the keyboard, replays the stored match, and is not on the leaderboard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.league.create import create_league
from arena.league.local import run_league
from arena.store import open_store
from arena.store.accounts import register_user
from tests.server.web.serving import web_server
from tests.server.web.test_browser import chromium_path, page  # noqa: F401

WAIT_MS = 30_000
"""The longest the page may take to show a change (never reached when it works)."""

OVER_OR_MY_TURN = "[data-board][data-over], [data-actions] button[data-key='1']:not([disabled])"
"""The board of a finished deal, or one where ann has an action to play."""


@pytest.fixture(scope="module")
def rated_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A store with a finished league of two policies and the user ann; its URL and her
    token."""
    folder: Path = tmp_path_factory.mktemp("play-browser")
    url = f"sqlite:///{folder / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, "rated", ["heuristic", "random"], games=["briscola"], deals=1)
        with store.session() as session:
            token = register_user(session, "ann")[1]
            session.commit()
    summary = run_league(url, "rated", workers=1, reuse_bots=False)
    assert summary.status is not None and summary.status.finished
    return url, token


def test_a_whole_briscola_deal_is_played_in_the_browser(
        page: Any, rated_store: tuple[str, str]) -> None:  # noqa: F811
    """Every one of ann's decisions is made on the page (the first with the mouse, the rest
    with the number keys) until the deal is over; the replay link shows the stored match
    with her seat under her name, and the leaderboard lists the policies but not her."""
    url, token = rated_store
    with web_server(url) as base:
        page.goto(f"{base}/play")
        page.locator("main").get_by_role("link", name="sign in").click()
        page.get_by_label("API token").fill(token)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{base}/play", timeout=WAIT_MS)
        assert page.get_by_label("Game").input_value() == "briscola"  # the usual game
        page.get_by_label("Game").select_option("briscola")
        page.get_by_label("Opponent").select_option("random")
        page.get_by_role("button", name="Take a seat").click()
        page.wait_for_url(f"{base}/play/*", timeout=WAIT_MS)
        page.evaluate("window.__stayed = true")
        decisions = 0
        while True:
            page.wait_for_selector(OVER_OR_MY_TURN, timeout=WAIT_MS)
            board = page.locator("[data-board]")
            if board.get_attribute("data-over") is not None:
                break
            version = board.get_attribute("data-version")
            assert page.locator("[data-clock]").inner_text().endswith("s left")
            if decisions == 0:
                page.locator("[data-actions] button[data-key='1']").click()
            else:
                page.keyboard.press(str(1 + decisions % page.locator(
                    "[data-actions] button[data-key]").count()))
            decisions += 1
            page.wait_for_function(
                f"document.querySelector('[data-board]').dataset.version !== '{version}'",
                timeout=WAIT_MS)
        assert decisions == 20  # a 2-player briscola deal: 40 cards, 20 plays each
        assert page.evaluate("window.__stayed") is True  # the page was never reloaded
        outcome = page.locator("[data-outcome]").inner_text()
        assert outcome.startswith("The deal is over: you")
        page.get_by_role("link", name="Replay the match").click()
        page.wait_for_url(f"{base}/matches/*", timeout=WAIT_MS)
        assert "ann (person)" in page.locator("main").inner_text()
        page.keyboard.press("End")
        page.wait_for_function(  # step 0 is the deal, then one step per action: 40 in all
            "document.querySelector('nav.stepper').dataset.step === '40'", timeout=WAIT_MS)
        page.goto(f"{base}/")
        board_text = page.locator("main").inner_text()
        assert "random (policy)" in board_text and "heuristic (policy)" in board_text
        assert "ann" not in board_text
        page.goto("about:blank")
