"""A real store with a small finished league (two policies, Briscola and Scopa, one deal)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from arena.league.create import create_league
from arena.league.local import run_league
from arena.server.web import create_app
from arena.store import Match, MatchRecordRow, open_store

LEAGUE = "webdemo"
"""The name of the league the pages are tested with."""


@dataclass(frozen=True)
class WebStore:
    """The test store: its URL, and a finished match of each game with its first record."""

    url: str
    matches: dict[str, str]
    records: dict[str, dict[str, object]]


@pytest.fixture(scope="session")
def web_store(tmp_path_factory: pytest.TempPathFactory) -> WebStore:
    """Create and run the league once for every test of the web pages."""
    folder: Path = tmp_path_factory.mktemp("web-store")
    url = f"sqlite:///{folder / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, LEAGUE, ["heuristic", "random"], games=["briscola", "scopa"],
                      deals=1)
    summary = run_league(url, LEAGUE, workers=1, reuse_bots=False)
    assert summary.status is not None and summary.status.finished
    matches: dict[str, str] = {}
    records: dict[str, dict[str, object]] = {}
    with open_store(url) as store, store.session() as session:
        for match in session.query(Match).order_by(Match.id):
            matches.setdefault(match.game_id, match.id)
        for game, match_id in matches.items():
            row = session.query(MatchRecordRow).filter_by(match_id=match_id, deal=0).one()
            records[game] = row.record
    return WebStore(url=url, matches=matches, records=records)


@pytest.fixture(scope="session")
def client(web_store: WebStore) -> Iterator[TestClient]:
    """A test client of the web app over the test store (server errors become 500 pages)."""
    with TestClient(create_app(web_store.url), raise_server_exceptions=False) as test_client:
        yield test_client
