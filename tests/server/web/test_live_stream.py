"""The live pages' event streams, served by uvicorn for real: the first event is the page's
mark, a change sends a new one, the marks hold no card of a deal in play, and streams beyond
the cap are refused with one line."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arena.server.web import live
from tests.server.web.live_store import feed, hidden_codes, running_match
from tests.server.web.serving import web_server

DEADLINE_S = 20.0
"""The longest a stream may take to send an event (never reached when it works)."""


def events(response: httpx.Response) -> Iterator[tuple[str, str]]:
    """The (event, data) pairs of a server-sent event stream, as they come."""
    name, data = "", ""
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data = line.removeprefix("data: ")
        elif line == "" and name:
            yield name, data
            name, data = "", ""


def test_a_match_stream_sends_its_marks_and_no_card(tmp_path: Path) -> None:
    """The stream of a match in play starts with its mark (state and action counts), sends
    another when an action is fed, and never names a card."""
    running = running_match(tmp_path, 5)
    with web_server(running.url) as base, httpx.Client(timeout=DEADLINE_S) as client, \
            client.stream("GET", f"{base}/live/matches/{running.match_id}") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = events(response)
        deadline = time.monotonic() + DEADLINE_S
        assert next(stream) == ("change", "leased;0:5")
        feed(running.url, running.match_id, running.seed, 7)
        name, mark = next(stream)
        assert (name, mark) == ("change", "leased;0:7")
        assert time.monotonic() < deadline
    assert not {code for code in hidden_codes(running.seed, 7) if code in mark}


def test_streams_beyond_the_cap_are_refused(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """With every stream slot taken, one more gets 503 and a line saying to reload later."""
    monkeypatch.setattr(live, "MAX_STREAMS", 1)
    running = running_match(tmp_path, 1)
    with web_server(running.url) as base, httpx.Client(timeout=DEADLINE_S) as client, \
            client.stream("GET", f"{base}/live/site") as first:
        opened = events(first)  # kept, so the first stream stays open
        assert next(opened)[0] == "change"
        refused = client.get(f"{base}/live/site")
        assert refused.status_code == 503
        assert refused.text.strip() == ("too many live pages are open on this server; "
                                        "reload later")
