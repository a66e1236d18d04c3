"""A match's page shows its seed and deal only once the match is done, whatever else the store
holds for it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from arena.league.create import create_league
from arena.league.local import run_league
from arena.server.web import create_app
from arena.store import Match, MatchRecordRow, MatchStatus, open_store


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[Match]]:
    """A secret league of two policies and a given-seed one, both played."""
    url = f"sqlite:///{tmp_path_factory.mktemp('web-sealed') / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, "secret", ["heuristic", "random"], games=["briscola"], deals=4)
        create_league(store, "given", ["heuristic", "random"], games=["briscola"], seed=3)
    for league in ("secret", "given"):
        summary = run_league(url, league, workers=1, reuse_bots=False)
        assert summary.status is not None and summary.status.finished
    with open_store(url) as store, store.session() as session:
        rows = list(session.scalars(select(Match).order_by(Match.league_id, Match.position)))
        session.commit()
    return url, rows


@pytest.mark.parametrize("status", [MatchStatus.PENDING, MatchStatus.LEASED, MatchStatus.VOID])
def test_a_match_not_done_shows_neither_its_seed_nor_its_deal(
        played: tuple[str, list[Match]], status: MatchStatus) -> None:
    """Set back from done (its records still stored), a match's page shows no seed, no card
    and no replay, and says the seed is secret until then; its replay's steps are not
    found."""
    url, rows = played
    match = rows[[MatchStatus.PENDING, MatchStatus.LEASED, MatchStatus.VOID].index(status)]
    with open_store(url) as store, store.session() as session:
        session.execute(update(Match).where(Match.id == match.id).values(status=status))
        session.commit()
        assert session.scalars(select(MatchRecordRow).where(
            MatchRecordRow.match_id == match.id)).all()
    with TestClient(create_app(url), raise_server_exceptions=False) as client:
        for query in ("", "?view=0", "?view=full&deal=1&step=2"):
            html = client.get(f"/matches/{match.id}{query}").text
            assert str(match.seed) not in html
            assert "data-card" not in html
            assert "seed secret, shown once the match is done" in html
        for query in ("", "?view=0", "?view=full&deal=1"):
            steps = client.get(f"/replay-steps/{match.id}{query}")
            assert steps.status_code == 404
            assert str(match.seed) not in steps.text and "data-card" not in steps.text


def test_a_done_match_shows_its_seed_and_its_deal(played: tuple[str, list[Match]]) -> None:
    """The end shows the seed, marked as secret until then, and every hand."""
    url, rows = played
    match = rows[3]
    with TestClient(create_app(url), raise_server_exceptions=False) as client:
        html = client.get(f"/matches/{match.id}").text
    assert f"seed {match.seed} (secret until the end)" in html
    assert "data-card" in html


def test_a_given_seed_match_says_its_seed_is_not_secret(played: tuple[str, list[Match]]) -> None:
    """A reproducible league's match is marked given, before and after its end."""
    url, rows = played
    given = next(row for row in rows if row.league_id != rows[0].league_id)
    with TestClient(create_app(url), raise_server_exceptions=False) as client:
        after = client.get(f"/matches/{given.id}").text
        assert f"seed {given.seed} (given: not secret)" in after
        with open_store(url) as store, store.session() as session:
            session.execute(update(Match).where(Match.id == given.id).values(
                status=MatchStatus.PENDING))
            session.commit()
        before = client.get(f"/matches/{given.id}").text
    assert "seed given, shown once the match is done" in before
    assert str(given.seed) not in before


def test_no_other_page_lists_a_seed(played: tuple[str, list[Match]]) -> None:
    """League, report, bot, game and home pages hold no match's seed."""
    url, rows = played
    with TestClient(create_app(url), raise_server_exceptions=False) as client:
        pages = [client.get(path).text for path in (
            "/", "/leagues", "/leagues/secret", "/leagues/given", "/leagues/secret/report",
            "/bots/policy:random", "/games/briscola")]
    for row in rows:
        assert not any(str(row.seed) in page for page in pages)
