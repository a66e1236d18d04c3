"""One template for the report: the page ``arena report`` writes and the service's report page
show the same tables with the same numbers; the written page reads on a phone (a viewport, and
tables that scroll inside the 390 px width); the service has its own favicon."""

from __future__ import annotations

import html as htmlmod
import urllib.parse
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.server.web.app import FAVICON
from tests.server.web.conftest import LEAGUE, WebStore
from tests.server.web.serving import web_server
from tests.server.web.test_browser import chromium_path, page  # noqa: F401 (fixtures)

Table = tuple[str, tuple[tuple[str, ...], ...]]
"""A table as read: its caption and its rows of cell texts (the header row first)."""

VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


class Tables(HTMLParser):
    """Every table of a page: its caption and the text of each cell, row by row."""

    def __init__(self) -> None:
        """An empty reader."""
        super().__init__()
        self.tables: list[Table] = []
        self._caption: list[str] = []
        self._rows: list[tuple[str, ...]] = []
        self._row: list[str] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Start a table, a row, a cell or a caption."""
        if tag == "table":
            self._caption, self._rows = [], []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th", "caption"):
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        """End a cell, a caption, a row or a table."""
        if tag in ("td", "th") and self._text is not None:
            self._row.append(" ".join("".join(self._text).split()))
            self._text = None
        elif tag == "caption" and self._text is not None:
            self._caption, self._text = self._text, None
        elif tag == "tr":
            self._rows.append(tuple(self._row))
        elif tag == "table":
            self.tables.append((" ".join("".join(self._caption).split()), tuple(self._rows)))

    def handle_data(self, data: str) -> None:
        """Text inside a cell or caption."""
        if self._text is not None:
            self._text.append(data)


def tables_of(html: str) -> list[Table]:
    """The tables of a page."""
    reader = Tables()
    reader.feed(html)
    return reader.tables


@pytest.fixture(scope="module")
def served(web_store: WebStore) -> Iterator[str]:
    """The service's web pages over the test store, for real (uvicorn); their base URL."""
    with web_server(web_store.url) as url:
        yield url


@pytest.fixture(scope="module")
def written(web_store: WebStore, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report.html that ``arena report`` writes for the test league."""
    folder = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(app, ["report", LEAGUE, "--db", web_store.url, "--out",
                                      str(folder), "--quiet"])
    assert result.exit_code == 0, result.output
    return folder / "report.html"


def test_the_file_and_the_service_show_the_same_tables(served: str, written: Path) -> None:
    """Every caption, header and cell, numbers included, reads the same in both pages."""
    web = httpx.get(f"{served}/leagues/{LEAGUE}/report")
    assert web.status_code == 200
    in_file = tables_of(written.read_text(encoding="utf-8"))
    on_web = tables_of(web.text)
    assert in_file == on_web
    captions = [caption for caption, _ in in_file]
    assert "Overall ratings (mean of the per-game ratings)" in captions
    assert captions.count("Pairs") == 2
    ratings = dict(in_file)["Overall ratings (mean of the per-game ratings)"]
    assert ratings[0] == ("Rank", "Bot", "μ", "σ", "μ − 3σ", "Contests")
    assert all(row[2].count(".") == 1 and len(row[2].split(".")[1]) == 2 for row in ratings[1:])


def test_both_pages_have_a_viewport_and_scrolling_tables(served: str, written: Path) -> None:
    """The viewport meta tag, and each table inside a container that scrolls."""
    for html in (written.read_text(encoding="utf-8"),
                 httpx.get(f"{served}/leagues/{LEAGUE}/report").text):
        assert VIEWPORT in html
        assert html.count("<table>") == html.count('<div class="scroll">\n<table>') > 0
    assert "http://" not in written.read_text(encoding="utf-8")  # nothing fetched from afar
    assert "https://" not in written.read_text(encoding="utf-8")


def test_the_service_serves_its_favicon(served: str) -> None:
    """The SVG icon is served by the service itself, linked from every page, and at
    /favicon.ico where browsers look first."""
    icon = httpx.get(f"{served}/favicon.svg")
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.startswith("<svg") and "http://www.w3.org/2000/svg" in icon.text
    assert "href=" not in icon.text
    probe = httpx.get(f"{served}/favicon.ico")
    assert probe.status_code == 200 and probe.content == icon.content
    assert probe.headers["content-type"].startswith("image/svg+xml")
    for path in ("/", "/leagues", f"/leagues/{LEAGUE}/report", "/nowhere"):
        html = httpx.get(f"{served}{path}").text
        assert '<link rel="icon" type="image/svg+xml" href="' in html, path
        assert "/favicon.svg" in html, path


def test_the_written_report_carries_the_same_icon(written: Path) -> None:
    """The file written by ``arena report`` embeds the service's icon, fetching nothing."""
    html = written.read_text(encoding="utf-8")
    start = html.index('<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,')
    href = html[start:].split('href="', 1)[1].split('"', 1)[0]
    embedded = urllib.parse.unquote(htmlmod.unescape(href).removeprefix("data:image/svg+xml,"))
    assert embedded.strip() == FAVICON.read_text(encoding="utf-8").strip()


def test_the_written_report_fits_a_phone(page: Any, written: Path,  # noqa: F811
                                         tmp_path: Path) -> None:
    """At 390 px the page does not scroll sideways: wide tables scroll in their containers."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(written.as_uri())
    assert page.locator("h1").inner_text() == f"League report: {LEAGUE}"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    widths = page.eval_on_selector_all(
        "div.scroll", "boxes => boxes.map(box => [box.scrollWidth, box.clientWidth])")
    assert widths and all(client <= 390 for _, client in widths)
    assert any(inner > client for inner, client in widths), "no table was wider than a phone"
    captions = page.eval_on_selector_all(
        "caption", "captions => captions.map(caption => caption.getBoundingClientRect().right)")
    assert captions and max(captions) <= 390, "a table's caption runs off the screen"
    page.screenshot(path=str(tmp_path / "report-phone.png"), full_page=True)
