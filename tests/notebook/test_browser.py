"""The written replay page in a real headless Chromium (Debian's, driven by Playwright),
opened from its file: the first frame, the keyboard and the buttons to the last, another view."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import arena
from arena.notebook import PlayedRecord
from arena.server.web.frames import match_frames


def require(condition: bool, why: str) -> None:
    """Skip the test when ``condition`` is false (fail it under CI)."""
    if not condition:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"required under CI: {why}")
        pytest.skip(why)


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    """A page of a headless Chromium, with JavaScript and no network."""
    path = shutil.which("chromium")
    require(path is not None, "Debian's chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "playwright is not installed (pip install -e '.[dev]')")
        raise
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1100, "height": 900},
                                          offline=True)
            yield context.new_page()
        finally:
            browser.close()


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[PlayedRecord, Path]:
    """A played match and its replay page, written to a file."""
    record = arena.play("briscola", ["random", "heuristic"], seed=13)
    return record, record.save_html(tmp_path_factory.mktemp("page") / "replay.html")


def label(page: Any) -> str:
    """The step label shown now (the one visible frame's)."""
    shown = page.locator("[data-step-label]:visible")
    assert shown.count() == 1
    return str(shown.inner_text())


def test_the_page_steps_from_the_first_frame_to_the_last(
        page: Any, written: tuple[PlayedRecord, Path]) -> None:
    """Opened from the file, the page shows the deal; End shows the last frame, Home the first,
    and the buttons step one frame at a time."""
    record, path = written
    frames = match_frames(record, None)
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.goto(path.resolve().as_uri())
    assert page.locator("h1").inner_text() == "Replay of a briscola match"
    assert label(page) == f"Hand 1 · {frames[0].label}"
    assert page.locator("[data-frame]:visible [data-card]").count() == len(
        frames[0].shown_cards())
    page.keyboard.press("End")
    last = len(frames) - 1
    assert page.get_attribute("nav.stepper", "data-step") == str(last)
    assert label(page) == f"Hand {frames[-1].hand} · {frames[-1].label}"
    assert page.locator("[data-step-link=next]").is_disabled()
    page.keyboard.press("Home")
    assert label(page) == f"Hand 1 · {frames[0].label}"
    page.locator("[data-step-link=next]").click()
    assert label(page) == f"Hand {frames[1].hand} · {frames[1].label}"
    page.locator("[data-step-link=last]").click()
    assert page.locator("[data-step-number]").inner_text() == str(last)
    assert failed == []


def test_a_seat_view_hides_the_other_hand(page: Any,
                                          written: tuple[PlayedRecord, Path]) -> None:
    """Switching to seat 0's view shows seat 1's hand as backs, at the same step."""
    _, path = written
    page.goto(path.resolve().as_uri())
    page.get_by_role("button", name="Seat 0").click()
    assert page.get_attribute("[data-view-choice='0']", "aria-current") == "page"
    other = page.locator("[data-frame]:visible section[aria-labelledby$='-seat-1']")
    assert other.locator("[data-card]").count() == 0
    assert other.locator(".card.back").count() == 3
    mine = page.locator("[data-frame]:visible section[aria-labelledby$='-seat-0']")
    assert mine.locator("[data-card]").count() == 3
    page.get_by_role("button", name="Full (every hand)").click()
    assert page.locator("[data-frame]:visible section[aria-labelledby$='-seat-1'] "
                        "[data-card]").count() == 3
