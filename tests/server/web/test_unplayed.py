"""Pages of a league that has not played yet: progress at zero, no replay, an empty report."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from arena.league.create import create_league
from arena.server.web import create_app
from arena.store import Match, open_store


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    """A store holding one league that was created but not run, and one of its match ids."""
    folder: Path = tmp_path_factory.mktemp("web-fresh")
    url = f"sqlite:///{folder / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, "waiting", ["heuristic", "random"], games=["briscola"], deals=1)
        with store.session() as session:
            match_id = session.query(Match.id).order_by(Match.id).first()[0]  # type: ignore[index]
    with TestClient(create_app(url), raise_server_exceptions=False) as client:
        yield client, match_id


def test_league_not_played_yet(fresh: tuple[TestClient, str]) -> None:
    """The league page says none of its matches finished; the leaderboard has no rows."""
    client, _ = fresh
    assert "0 of 1 matches finished" in client.get("/leagues/waiting").text
    assert "No finished match yet." in client.get("/").text


def test_match_without_records_has_no_replay(fresh: tuple[TestClient, str]) -> None:
    """A pending match's page shows its entrants and says there is nothing to replay."""
    client, match_id = fresh
    response = client.get(f"/matches/{match_id}?step=3")
    assert response.status_code == 200
    assert "No replay: this match has no stored deal yet (it is pending)." in response.text
    assert "data-card" not in response.text


def test_report_and_bot_pages_without_results(fresh: tuple[TestClient, str]) -> None:
    """The report and a bot's page render with nothing played."""
    client, _ = fresh
    report = client.get("/leagues/waiting/report")
    assert report.status_code == 200 and "Overall" in report.text
    plot = client.get("/leagues/waiting/report/plots/ratings.png")
    assert plot.status_code == 200 and plot.content.startswith(b"\x89PNG")
    assert client.get("/leagues/waiting/report/plots/nothing.png").status_code == 404
    bot = client.get("/bots/policy:random")
    assert bot.status_code == 200 and "No shared set yet." in bot.text
