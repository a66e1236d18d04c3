"""The pages in a real headless Chromium (Debian's, driven by Playwright): from the leaderboard
to a bot, to a match, stepping the replay with the keyboard, with screenshots checked for the
cards the page says it shows."""

from __future__ import annotations

import io
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from PIL import Image

from arena.match.record import MatchRecord
from arena.server.web import create_app
from arena.server.web.frames import match_frames
from tests.server.web.conftest import LEAGUE, WebStore

PAGE_BACKGROUND = (250, 250, 250)
"""The page's background colour (#fafafa)."""

SERVER_START_S = 20.0
"""How long the server may take to answer."""


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
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(create_app(web_store.url), log_level="warning")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + SERVER_START_S
    while not instance.started:
        assert time.monotonic() < deadline, "the web server did not start"
        assert thread.is_alive(), "the web server stopped while starting"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        instance.should_exit = True
        thread.join(timeout=10)
        listener.close()


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
