"""The web leaderboard, game, bot and report pages of a league with a bot that crashes in
every deal: its crashes are counted on each, it ranks last, and its log stays private."""

from __future__ import annotations

import re
from pathlib import Path

from agents.botkit import make_bot
from fastapi.testclient import TestClient

from arena.league.create import create_league
from arena.league.local import run_league
from arena.server.web import create_app
from arena.store import open_store

LEAGUE = "crashcup"


def test_pages_show_the_crashes_and_rank_the_crasher_last(tmp_path: Path) -> None:
    """Leaderboard and game page: a forfeits column and the note; bot page: its count;
    public report: the faults listed without the bot's own words."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    crasher = make_bot(tmp_path / "crasher", "--crash-at", "1", "--say", "PRIVATE-WORDS",
                       name="crasher")
    with open_store(url) as store:
        create_league(store, LEAGUE, [str(crasher), "random"], games=["briscola"], deals=2)
    summary = run_league(url, LEAGUE, workers=1, reuse_bots=False)
    assert summary.status is not None and summary.status.finished
    count = summary.status.faults["crasher"]
    assert count.forfeits == 4 and count.faults["CRASH"] >= 1
    with TestClient(create_app(url)) as client:
        home = client.get("/").text
        rows = re.findall(r'<th scope="row"><a href="/bots/([^"]+)">', home)
        assert rows == ["policy:random", "crasher"]
        assert f"<strong>{count.text()}</strong>" in home
        assert "forfeits scored as loss; no deal left out" in home
        game = client.get("/games/briscola").text
        assert count.text() in game and "no deal left out" in game
        bot = client.get("/bots/crasher").text
        assert f"Forfeits: <strong>4 deals ({count.text()})</strong>" in bot
        clean = client.get("/bots/policy:random").text
        assert "Forfeits: none." in clean
        report = client.get(f"/leagues/{LEAGUE}/report").text
        assert "Faults (4 forfeited seats)" in report
        assert "PRIVATE-WORDS" not in report and "crashing at decision" not in report
