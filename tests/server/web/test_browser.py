"""The pages in a real headless Chromium (Debian's, driven by Playwright): from the leaderboard
to a bot, to a match, stepping the replay with the keyboard, with screenshots checked for the
cards the page says it shows; and a bot's owner signing in to see its debug notes."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from arena.match.record import MatchRecord
from arena.server.web.frames import match_frames
from tests.server.web.conftest import LEAGUE, WebStore
from tests.server.web.owners import HOSTILE, MARKERS, owned_arena
from tests.server.web.serving import web_server

PAGE_BACKGROUND = (250, 250, 250)
"""The page's background colour (#fafafa)."""


def in_ci() -> bool:
    """True under CI, where a missing browser fails the test instead of skipping it."""
    return os.environ.get("CI", "").lower() == "true"


def require(condition: bool, why: str) -> None:
    """Skip the test when ``condition`` is false (fail it under CI)."""
    if not condition:
        if in_ci():
            pytest.fail(f"required under CI: {why}")
        pytest.skip(why)


@pytest.fixture(scope="module")
def chromium_path() -> str:
    """Debian's Chromium, found on the PATH."""
    path = shutil.which("chromium")
    require(path is not None, "Debian's chromium is not installed (apt-get install chromium)")
    assert path is not None
    return path


@pytest.fixture(scope="module")
def server(web_store: WebStore) -> Iterator[str]:
    """The web app served by uvicorn on a free local port, in a thread; its base URL."""
    with web_server(web_store.url) as url:
        yield url


@pytest.fixture()
def page(chromium_path: str) -> Iterator[Any]:
    """A page of a headless Chromium launched through Playwright."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "playwright is not installed (pip install -e '.[dev]')")
        raise
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1100, "height": 900})
            yield context.new_page()
        finally:
            browser.close()


def check_cards_drawn(page: Any, shot: Path) -> list[str]:
    """Save a screenshot and check every card the page draws inside the viewport: its box is
    visible, and its pixels are not the page background (a white card with dark or red ink).
    The codes of the cards checked."""
    page.screenshot(path=str(shot))
    image = Image.open(io.BytesIO(shot.read_bytes())).convert("RGB")
    viewport = page.viewport_size
    codes = []
    for element in page.query_selector_all("[data-card]"):
        box = element.bounding_box()
        assert box is not None and element.is_visible()
        if box["y"] + box["height"] > viewport["height"] or box["y"] < 0:
            continue
        left, top = int(box["x"]) + 2, int(box["y"]) + 2
        right, bottom = int(box["x"] + box["width"]) - 2, int(box["y"] + box["height"]) - 2
        crop = image.crop((left, top, right, bottom))
        pixels = [crop.getpixel((x, y)) for x in range(crop.width) for y in range(crop.height)]
        assert pixels, element.get_attribute("data-card")
        not_background = sum(pixel != PAGE_BACKGROUND for pixel in pixels)
        ink = sum(min(pixel) < 160 for pixel in pixels)
        assert not_background > 0.9 * len(pixels), element.get_attribute("data-card")
        assert ink > 10, element.get_attribute("data-card")
        codes.append(element.get_attribute("data-card"))
    return codes


def shown_step(page: Any) -> int:
    """The step the replay page is at."""
    return int(page.get_attribute("nav.stepper", "data-step"))


def test_leaderboard_to_bot_to_match_replay(page: Any, server: str, web_store: WebStore,
                                            tmp_path: Path) -> None:
    """Follow the leaderboard to a bot and a match, step the replay by keyboard, and check
    that each screenshot draws the cards of the frame."""
    page.goto(f"{server}/")
    assert page.locator("h1").inner_text() == "Leaderboard"
    page.screenshot(path=str(tmp_path / "leaderboard.png"))
    page.get_by_role("link", name="heuristic (policy)").first.click()
    page.wait_for_url("**/bots/policy:heuristic")
    assert page.locator("h1").inner_text() == "Bot heuristic (policy)"
    assert page.locator("figure.plot svg").count() == 1
    page.screenshot(path=str(tmp_path / "bot.png"), full_page=True)
    match_id = web_store.matches["briscola"]
    page.get_by_role("link", name=match_id).click()
    page.wait_for_url(f"**/matches/{match_id}")
    record = MatchRecord.from_dict({key: value for key, value in
                                    web_store.records["briscola"].items()
                                    if key not in ("rotation", "entrants")})
    frames = match_frames(record, None)
    page.locator("#replay").scroll_into_view_if_needed()
    for step in range(4):
        assert shown_step(page) == step
        codes = check_cards_drawn(page, tmp_path / f"replay-{step}.png")
        expected = {card.code for card in frames[step].shown_cards()}
        assert set(page.eval_on_selector_all("[data-card]",
                                             "cards => cards.map(c => c.dataset.card)")) \
            == expected
        assert codes, "no card of the replay was in the viewport"
        with page.expect_navigation():
            page.keyboard.press("ArrowRight")
    assert shown_step(page) == 4
    with page.expect_navigation():
        page.keyboard.press("ArrowLeft")
    assert shown_step(page) == 3


def test_seat_view_and_phone_width(page: Any, server: str, web_store: WebStore,
                                   tmp_path: Path) -> None:
    """On a phone-sized screen the replay and every other page fit the width, and a seat's
    view draws the other hand as backs only."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server}/matches/{web_store.matches['scopa']}?view=0&step=0#replay")
    page.locator(".board").scroll_into_view_if_needed()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    opponent = page.locator("section.seat").nth(1)
    assert opponent.locator("[data-card]").count() == 0
    assert opponent.locator(".card.back").count() == 3
    codes = check_cards_drawn(page, tmp_path / "phone-seat0.png")
    assert codes
    for path in ("/", "/bots/policy:random", f"/leagues/{LEAGUE}", f"/leagues/{LEAGUE}/report",
                 "/games/scopa", "/bots/nobody"):
        page.goto(f"{server}{path}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path


def test_signing_in_shows_the_owners_notes_in_the_replay(
        page: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """ann opens a replay step where her bot left a note: none is shown; she signs in from the
    header's link with her token, comes back to that step and sees her note (escaped), and
    not ben's at his step; once she signs out the note is gone."""
    arena = owned_arena(tmp_path_factory.mktemp("browser-sign-in"))
    deal, _, step = arena.steps["ann"][0]
    bens = next(entry for entry in arena.steps["ben"] if entry[0] == deal)[2]
    with web_server(arena.url) as base:
        address = f"{base}/matches/{arena.match_id}?view=full&deal={deal}&step={step}"
        page.goto(address)
        assert page.locator(".bot-note").count() == 0
        page.get_by_role("link", name="Sign in").click()
        page.get_by_label("API token").fill("not-a-token")
        page.get_by_role("button", name="Sign in").click()
        assert "unknown API token" in page.get_by_role("alert").inner_text()
        page.get_by_label("API token").fill(arena.tokens["ann"])
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(address)
        assert page.locator("[data-signed-in]").inner_text() == "ann"
        note = page.locator(".bot-note").inner_text()
        assert MARKERS["ann"] in note and "\\x1b[2J<b>" in note and HOSTILE not in note
        assert not page.evaluate("document.cookie")  # HttpOnly: no script reads it
        page.goto(f"{base}/matches/{arena.match_id}?view=full&deal={deal}&step={bens}")
        assert page.locator(".bot-note").count() == 0
        assert MARKERS["ben"] not in page.content()
        page.get_by_role("button", name="Sign out").click()
        page.wait_for_url(f"{base}/")
        assert page.get_by_role("link", name="Sign in").count() == 1
        page.goto(address)
        assert page.locator(".bot-note").count() == 0
