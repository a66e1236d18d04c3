"""One formatter for every statistic: the terminal, Markdown, HTML and the web pages show one
value the same way."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from arena.cli import app
from arena.league.create import create_league
from arena.league.local import run_league
from arena.league.numbers import estimate, fixed, p_value, rate, signed, verdict
from arena.league.report import build_report
from arena.league.status import find_league, league_bots, played_sets
from arena.server.web import create_app
from arena.store import open_store

LEAGUE = "numbers"
"""A league of six duplicate sets between two policies: enough for intervals."""

BOTS = ["heuristic", "random"]


@pytest.fixture(scope="module")
def store_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store holding the finished league."""
    url = f"sqlite:///{tmp_path_factory.mktemp('numbers') / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, LEAGUE, BOTS, games=["briscola"], deals=6, seed=3)
    summary = run_league(url, LEAGUE, workers=1, reuse_bots=False)
    assert summary.status is not None and summary.status.finished
    return url


@pytest.fixture(scope="module")
def client(store_url: str) -> Iterator[TestClient]:
    """The web app over the store."""
    with TestClient(create_app(store_url), raise_server_exceptions=False) as test_client:
        yield test_client


def test_the_formatter_writes_signs_intervals_and_missing_data() -> None:
    class Bounds:
        low, high = 0.1234, 1.2051

    assert estimate(0.6666, Bounds()) == "+0.67 (+0.12, +1.21)"
    assert estimate(-0.5, None) == "-0.50 (not enough data)"
    assert signed(-0.001) == "0.00" and fixed(-0.001) == "0.00" and fixed(25.0) == "25.00"
    assert rate(0.7, Bounds()) == "70.0% (12.3%, 120.5%)"
    assert rate(0.5, None) == "50.0% (not enough data)"
    assert (p_value(0.04321), p_value(0.0000123), p_value(None)) == ("0.043", "<0.001", "–")
    assert (verdict(True, True), verdict(False, True), verdict(False, False)) == (
        "yes", "no", "not enough data")


def test_one_value_reads_the_same_in_terminal_markdown_html_and_web(
        store_url: str, client: TestClient, tmp_path: Path) -> None:
    with open_store(store_url) as store, store.session() as session:
        league = find_league(session, LEAGUE)
        played, _ = played_sets(session, [league])
        names = league_bots(session, league)
    report = build_report(played, LEAGUE, list(names.values()))
    (pair,) = report.games[0].pairs
    assert pair.sets == 6 and pair.difference_ci is not None and pair.win_ci is not None
    difference = estimate(pair.mean_difference, pair.difference_ci)
    win_rate = rate(pair.win_rate, pair.win_ci)
    assert re.fullmatch(r"[+-]\d+\.\d\d \([+-]\d+\.\d\d, [+-]\d+\.\d\d\)", difference)

    result = CliRunner().invoke(app, ["report", LEAGUE, "--out", str(tmp_path),
                                      "--db", store_url], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    report_html = html.unescape((tmp_path / "report.html").read_text(encoding="utf-8"))
    web_report = html.unescape(client.get(f"/leagues/{LEAGUE}/report").text)
    policy = re.fullmatch(r"(\w+) \(policy\)", pair.bot)
    assert policy is not None
    web_bot = html.unescape(client.get(f"/bots/policy:{policy.group(1)}").text)
    for shown in (result.output, markdown, report_html, web_report, web_bot):
        assert difference in shown
        assert win_rate in shown
        assert "Holm" in shown
    assert p_value(pair.adjusted_p) in web_bot and p_value(pair.adjusted_p) in web_report
