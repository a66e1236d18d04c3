"""``arena serve --metrics-port --log-format json``: a real service process runs a league of
the reference policies and a bot that crashes; its endpoint counts the matches, decisions and
faults and shows the queue draining, and its log is JSON lines with the match fields and no
seed."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.league.create import LeagueSettings, create_league
from arena.match.timecontrol import TimeControl
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import RemoteArena
from arena.store import open_store
from arena.store.accounts import register_user
from arena.store.models import Match, MatchRecordRow, SeatResult

from .scraping import CRASHER, bot_env, free_port, json_lines, scrape, value, wait_for

LEAGUE = "watched"
BOTS = ["random", "heuristic", str(CRASHER)]
"""Three entrants: three matches, two of them against the crashing bot."""


@dataclass
class Served:
    """A running ``arena serve``: its database, ports, log and an API client's token."""

    url: str
    grpc: str
    metrics: int
    log: Path
    token: str
    process: subprocess.Popen[bytes]

    def ended(self) -> str | None:
        """The log, once the service stopped; None while it runs."""
        return None if self.process.poll() is None else self.log.read_text()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """``arena serve`` with metrics and JSON logs over a store holding the league and a user."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, LEAGUE, BOTS, ["briscola"], deals=1,
                      settings=LeagueSettings(TimeControl(decision_ms=10_000)))
        with store.session() as session:
            _, token = register_user(session, "ann")
            session.commit()
    grpc_port, web_port, metrics_port = free_port(), free_port(), free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", "from arena.cli import app; app()", "serve", "--db", url,
             "--grpc-port", str(grpc_port), "--web-port", str(web_port), "--workers", "1",
             "--metrics-port", str(metrics_port), "--log-format", "json",
             "--data", str(tmp_path / "data")],
            env=bot_env(XDG_DATA_HOME=str(tmp_path)), stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
    served = Served(url, f"127.0.0.1:{grpc_port}", metrics_port, log, token, process)
    try:
        yield served
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=60)


def test_a_served_league_is_counted_and_logged_as_json(served: Served) -> None:
    """Before the run the queue holds the three matches; after it the endpoint counts three
    matches done, every decision stored and every CRASH forfeit stored; the log parses line by
    line, says each match ended and each crash with its bot and reason, and names no seed."""
    before = wait_for(lambda: scrape(served.metrics), "the metrics endpoint", served.ended)
    assert value(before, "arena_queue_depth") == 3
    assert value(before, "arena_matches_by_status", status="pending") == 3
    assert value(before, "arena_matches_total", game="briscola", result="done") == 0

    with RemoteArena(served.grpc, served.token) as client:
        wait_for(lambda: _answers(client), "the gRPC API", served.ended)
        client.call("RunLeague", pb.RunLeagueRequest(name=LEAGUE))
    after = wait_for(lambda: _all_done(served.metrics), "every match done", served.ended)

    decisions, crashes, seeds, ids = _stored(served.url)
    assert crashes > 0
    assert value(after, "arena_queue_depth") == 0
    assert value(after, "arena_matches_total", game="briscola", result="done") == 3
    assert value(after, "arena_decisions_total", game="briscola") == decisions
    assert value(after, "arena_faults_total", reason="CRASH") == crashes
    assert value(after, "arena_lease_expiries_total") == 0

    served.process.send_signal(signal.SIGINT)
    assert served.process.wait(timeout=60) == 0
    text = served.log.read_text()
    lines = json_lines(text)
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    ended = [line for line in lines if line["message"] == "match ended"]
    assert sorted(line["match_id"] for line in ended) == sorted(ids)
    assert {(line["league"], line["game"], line["result"]) for line in ended} == {
        (LEAGUE, "briscola", "done")}
    assert sum(line["decisions"] for line in ended) == decisions
    faults = [line for line in lines if line["message"] == "seat fault"]
    assert len(faults) == crashes
    assert {(line["bot"], line["reason"], line["league"]) for line in faults} == {
        ("crash-mid-match", "CRASH", LEAGUE)}
    for seed in seeds:
        for form in {str(seed), f"{seed:x}", f"{seed:016x}"}:
            assert form not in text


def _answers(client: RemoteArena) -> bool:
    """True once the service answers a call."""
    from arena.server.remote import RemoteError

    try:
        client.call("GetLeagueStatus", pb.GetLeagueStatusRequest(name=LEAGUE))
    except RemoteError:
        return False
    return True


def _all_done(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float] | None:
    """The scrape, once it shows every match of the league done in the store and counted by
    the worker (which counts a match once the store has it, so a scrape may fall between)."""
    samples = scrape(port)
    if samples and value(samples, "arena_matches_by_status", status="done") == 3 \
            and value(samples, "arena_matches_total", game="briscola", result="done") == 3:
        return samples
    return None


def _stored(url: str) -> tuple[int, int, list[int], list[str]]:
    """From the store: decisions in the records, CRASH forfeits, the matches' seeds and ids."""
    with open_store(url) as store, store.session() as session:
        records = session.scalars(select(MatchRecordRow)).all()
        decisions = sum(len(row.record["actions"]) for row in records)
        crashes = sum(row.faults.get("CRASH", 0)
                      for row in session.scalars(select(SeatResult)).all())
        matches = session.scalars(select(Match)).all()
        return decisions, crashes, [match.seed for match in matches], [m.id for m in matches]
