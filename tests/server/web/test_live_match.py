"""A match in play on its page: the public view shows no hidden card, the signed-in owner of
a bot gets its seat's view, and nothing else (the steps fragment, the page of another view,
the event stream's marks) carries a card nobody may see yet."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from arena.server.web import create_app
from arena.server.web.live import match_mark, site_mark
from arena.store import open_store
from tests.server.web.live_store import Running, hidden_codes, running_match, seat_codes

SITE = "http://testserver"
ACTIONS = 5
DATA_CARD = re.compile(r'data-card="([^"]+)"')


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Running:
    """A Briscola match in play, five actions of its first deal fed."""
    return running_match(tmp_path_factory.mktemp("live-match"), ACTIONS)


@pytest.fixture()
def web(running: Running) -> Iterator[TestClient]:
    """A test client of the web app over that store."""
    with TestClient(create_app(running.url), base_url=SITE,
                    raise_server_exceptions=False) as client:
        yield client


def codes(html: str) -> set[str]:
    """The cards a page draws face up."""
    return set(DATA_CARD.findall(html))


def sign_in(web: TestClient, token: str) -> None:
    """Sign in through the form, as the browser does."""
    response = web.post("/sign-in", data={"token": token, "next": "/"},
                        headers={"Origin": SITE}, follow_redirects=False)
    assert response.status_code == 303, response.text


def test_the_public_view_shows_plays_and_no_hidden_card(web: TestClient,
                                                        running: Running) -> None:
    """Every view a spectator can ask for is the public one: the board and the plays are
    drawn, no card of a hand or of the stock is named anywhere in the page."""
    hidden = hidden_codes(running.seed, ACTIONS)
    for query in ("", "?view=public", "?view=mine", "?view=full", "?view=0"):
        html = web.get(f"/matches/{running.match_id}{query}").text
        assert "Deals in play" in html and "public view" in html
        assert codes(html), "the plays so far are drawn"
        board = html.split('data-live-board="0"', 1)[1].split('<ol class="live-events"', 1)[0]
        assert "Trump" in board and codes(board), "the board is drawn, the trump face up"
        assert not codes(html) & hidden, query
        assert "card back" in html
        assert "Your bot's seat" not in html


def test_the_owner_sees_the_seat_of_the_bot(web: TestClient, running: Running) -> None:
    """Signed in, ann may ask for her bot's seat: its hand is drawn, the other's is not."""
    sign_in(web, running.token)
    html = web.get(f"/matches/{running.match_id}?view=mine").text
    assert "seat 0's view" in html and "Your bot's seat" in html
    own = seat_codes(running.seed, ACTIONS, running.owner_seat)
    other = seat_codes(running.seed, ACTIONS, 1 - running.owner_seat)
    assert own <= codes(html)
    assert not other & codes(html)
    board = html.split('data-live-board="0"', 1)[1].split('<ol class="live-events"', 1)[0]
    assert own <= codes(board), "the board holds the bot's hand"
    public = web.get(f"/matches/{running.match_id}").text
    assert not own & codes(public)


def test_nothing_else_shows_the_deal_in_play(web: TestClient, running: Running) -> None:
    """No steps of a running match, and its marks count actions, not cards."""
    assert web.get(f"/replay-steps/{running.match_id}").status_code == 404
    with open_store(running.url) as store:
        mark = match_mark(store, running.match_id)
        assert mark == f"leased;0:{ACTIONS}"
        assert site_mark(store).startswith("pending=0,leased=1,")
