"""The web pages over a real store: leaderboards, bots, leagues, the report, matches, errors."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from arena.games.cards import HIDDEN
from arena.match.record import MatchRecord, apply_recorded
from tests.server.web.conftest import LEAGUE, WebStore

DATA_CARD = re.compile(r'data-card="([^"]+)"')
SETS = re.compile(r"<td class=\"n\" data-sets>(\d+)</td>")


def shown_codes(html: str) -> set[str]:
    """The cards a page says it draws (their ``data-card`` codes)."""
    return set(DATA_CARD.findall(html))


def record_of(data: dict[str, object]) -> MatchRecord:
    """A stored deal record as a ``MatchRecord``."""
    return MatchRecord.from_dict({key: value for key, value in data.items()
                                  if key not in ("rotation", "entrants")})


def test_home_shows_the_overall_leaderboard_with_uncertainty(client: TestClient) -> None:
    """The home page ranks both bots with mu ± sigma and the conservative estimate."""
    response = client.get("/")
    assert response.status_code == 200
    html = response.text
    assert "heuristic (policy)" in html and "random (policy)" in html
    assert re.search(r"\d+\.\d\d ± \d+\.\d\d", html)
    assert '<th scope="col" class="n">Rank</th>' in html
    assert 'href="/games/briscola"' in html and 'href="/games/scopa"' in html
    assert 'href="/bots/policy:heuristic"' in html
    # The league plays one duplicate set of each of its two games: two sets per bot.
    assert SETS.findall(html) == ["2", "2"]


def test_game_page_lists_the_game_ratings(client: TestClient) -> None:
    """A game's page holds its leaderboard, with the one set each rating rests on."""
    html = client.get("/games/scopa").text
    assert "Ratings in scopa" in html
    assert html.count('<th scope="row">') == 2
    assert SETS.findall(html) == ["1", "1"]


def test_bot_page_has_history_results_and_head_to_head(client: TestClient) -> None:
    """A bot's page: an inline SVG history, a row per game, the other bot in head to head."""
    response = client.get("/bots/policy:random")
    assert response.status_code == 200
    html = response.text
    assert "<svg" in html and "Rating history" in html
    assert 'href="/games/briscola"' in html and 'href="/games/scopa"' in html
    head_to_head = html.split("Head to head", 1)[1]
    assert 'href="/bots/policy:heuristic"' in head_to_head
    assert f'href="/leagues/{LEAGUE}"' in html


def test_leagues_and_league_progress(client: TestClient, web_store: WebStore) -> None:
    """The leagues list and a league's page show done out of total, per game too."""
    listing = client.get("/leagues").text
    assert f'href="/leagues/{LEAGUE}"' in listing and "2 / 2" in listing
    html = client.get(f"/leagues/{LEAGUE}").text
    assert "2 of 2 matches finished" in html
    assert "1 / 1" in html
    for match_id in web_store.matches.values():
        assert f'href="/matches/{match_id}"' in html


def test_report_page_reuses_the_league_report(client: TestClient) -> None:
    """The report page holds the report's sections, and its plots are PNG images."""
    html = client.get(f"/leagues/{LEAGUE}/report").text
    for heading in ("Overall", "briscola", "scopa", "Head to head", "Pairs"):
        assert heading in html
    images = re.findall(r'<img src="([^"]+)" class="plot"', html)
    assert len(images) == 3
    plot = client.get(images[0])
    assert plot.status_code == 200 and plot.content.startswith(b"\x89PNG")


def test_match_page_full_view_shows_every_hand(client: TestClient, web_store: WebStore) -> None:
    """The deal in the full view draws every seat's hand."""
    record = record_of(web_store.records["briscola"])
    state = record.make_game().new_initial_state(record.seed)
    html = client.get(f"/matches/{web_store.matches['briscola']}").text
    deck = state.game.deck
    for seat in range(record.players):
        for card in state.observation(seat).hand:
            assert deck.short(card) in shown_codes(html)
    assert 'data-step-link="next"' in html and "Step <strong>0</strong> of" in html


@pytest.mark.parametrize("game", ["briscola", "scopa"])
def test_seat_view_never_shows_another_seat_hidden_cards(
        client: TestClient, web_store: WebStore, game: str) -> None:
    """At every step, a seat's page holds none of the other seat's hidden cards, which the
    full view of the same step does show."""
    record = record_of(web_store.records[game])
    state = record.make_game().new_initial_state(record.seed)
    deck = state.game.deck
    match_id = web_store.matches[game]
    total = len(record.actions)
    for step in range(0, total + 1, 4):
        while len(state.history()) < step:
            index = len(state.history())
            apply_recorded(state, index, record.actions[index], total)
        known = state.observation(0).seen_cards()  # shown hands, the face-up trump drawn
        hidden = {deck.short(card) for card in state.observation(1).hand
                  if card != HIDDEN and card not in known}
        seat_html = client.get(f"/matches/{match_id}?view=0&step={step}").text
        assert not hidden & shown_codes(seat_html), step
        for code in hidden:
            assert deck.long_name(deck.parse(code)) not in seat_html
        full_html = client.get(f"/matches/{match_id}?view=full&step={step}").text
        assert hidden <= shown_codes(full_html)


def test_replay_steps_are_links(client: TestClient, web_store: WebStore) -> None:
    """Each step page links to the previous and next steps, so no script is needed."""
    match_id = web_store.matches["scopa"]
    html = client.get(f"/matches/{match_id}?view=1&step=3").text
    assert 'href="?view=1&amp;deal=0&amp;step=2#replay"' in html
    assert 'href="?view=1&amp;deal=0&amp;step=4#replay"' in html
    assert 'aria-keyshortcuts="ArrowRight"' in html
    second = client.get(f"/matches/{match_id}?deal=1&step=1").text
    assert "Replay of deal 2" in second


@pytest.mark.parametrize("path", ["/bots/nobody", "/leagues/nothing", "/leagues/nothing/report",
                                  "/matches/9/briscola/r0/t0/d0", "/games/no-such-game",
                                  "/no/such/page"])
def test_missing_things_are_404_pages(client: TestClient, path: str) -> None:
    """Unknown bots, leagues, matches, games and pages give the 404 page, not a trace."""
    response = client.get(path)
    assert response.status_code == 404
    assert "404 · Not found" in response.text
    assert "Traceback" not in response.text


@pytest.mark.parametrize("query", ["view=5", "view=seat", "step=100000", "step=-1", "deal=2"])
def test_bad_replay_parameters_are_400_pages(client: TestClient, web_store: WebStore,
                                             query: str) -> None:
    """A seat, step or deal the match does not have is one line on a 400 page."""
    response = client.get(f"/matches/{web_store.matches['briscola']}?{query}")
    assert response.status_code == 400
    assert re.search(r'<p class="error" data-status="400">(view|step|deal) must be', response.text)


def test_unexpected_errors_are_500_pages(client: TestClient,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure inside a page gives the 500 page without a trace."""
    def broken() -> None:
        """Fail as a bug would."""
        raise RuntimeError("secret internals")

    monkeypatch.setattr(client.app.state.queries, "leagues", broken)  # type: ignore[attr-defined]
    response = client.get("/leagues")
    assert response.status_code == 500
    assert "Server error" in response.text and "secret internals" not in response.text
