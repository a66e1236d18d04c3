"""Leagues whose workers keep their process bots between matches: the same results as fresh
bots, and no bot process left once the run ends or is interrupted.

Every test runs on SQLite and on a private PostgreSQL (the fixtures of ``tests/store``). The
process bot is the scripted test bot in a folder of the test's own, so its processes are found
by their working folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from agents.botkit import make_bot
from sqlalchemy import select
from store import conftest as store_fixtures

from arena.league.create import create_league
from arena.league.local import run_league
from arena.store import Match, MatchRecordRow, SeatResult, Store
from tests.interrupts import default_sigint

from .test_league_run import RUN_APP, WAIT_S, assert_played_once, wait_for_running

pg_cluster = store_fixtures.pg_cluster
store_url = store_fixtures.store_url
store = store_fixtures.store

TIMED = ("decision_us", "match_id")
"""Record fields that differ between two plays of one match (times, the league's id)."""


def bot_processes(folder: Path) -> list[int]:
    """The processes running in a bot folder."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if Path(os.readlink(entry / "cwd")) == folder:
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def played(store: Store, league_id: int) -> dict[int, Any]:
    """Each match of a league (by its place in the schedule) with its seat results and its
    records without their times and captured output."""
    with store.session() as session:
        matches = session.scalars(select(Match).where(Match.league_id == league_id)).all()
        out: dict[int, Any] = {}
        for match in matches:
            results = session.execute(select(
                SeatResult.seat, SeatResult.bot_version_id, SeatResult.total_return,
                SeatResult.returns, SeatResult.reason, SeatResult.forfeited,
                SeatResult.decisions).where(SeatResult.match_id == match.id)
                .order_by(SeatResult.seat)).all()
            records = session.scalars(select(MatchRecordRow.record).where(
                MatchRecordRow.match_id == match.id).order_by(MatchRecordRow.deal)).all()
            out[match.position] = (
                [tuple(row[2:]) for row in results], [untimed(record) for record in records])
        session.commit()
    return out


def untimed(record: dict[str, Any]) -> dict[str, Any]:
    """A record without its decision times, match id, banks left and captured output."""
    kept = {key: value for key, value in record.items() if key not in TIMED}
    kept["seats"] = [{key: value for key, value in seat.items()
                      if key not in ("bank_ms", "stderr")} for seat in record["seats"]]
    return kept


def test_kept_bots_store_what_fresh_bots_store(store: Store, store_url: str,
                                               tmp_path: Path) -> None:
    """One league played with fresh bots per match and again with kept bots: the same seat
    results and records; no bot process is left after either run."""
    folder = make_bot(tmp_path / "bot")
    bots = [str(folder), "random", "heuristic"]
    games = ["briscola", "scopa"]
    fresh = create_league(store, "fresh", bots, games, seed=0)
    kept = create_league(store, "kept", bots, games, seed=0)
    first = run_league(store_url, "fresh", workers=2, reuse_bots=False)
    assert first.status is not None and first.status.finished
    assert bot_processes(folder) == []
    summary = run_league(store_url, "kept", workers=2)
    assert summary.status is not None and summary.status.finished
    assert bot_processes(folder) == []
    assert_played_once(store, kept)
    assert played(store, kept) == played(store, fresh)


def test_ctrl_c_leaves_no_bot_behind(store: Store, store_url: str, tmp_path: Path) -> None:
    """Ctrl-C in the middle of ``league run``: the workers stop their kept bots and the ones
    playing, then end; no bot process is left, and running the league again finishes it."""
    folder = make_bot(tmp_path / "bot", "--sleep-ms", "5")
    league_id = create_league(store, "stop", [str(folder), "heuristic", "random"],
                              ["briscola", "scopa", "tressette"], deals=3)
    program = subprocess.Popen(
        [sys.executable, "-c", RUN_APP, "league", "run", "stop", "--workers", "2",
         "--db", store_url],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=default_sigint)
    try:
        wait_for_running(store, league_id, program)
        assert bot_processes(folder)
        os.killpg(program.pid, signal.SIGINT)
        output, _ = program.communicate(timeout=WAIT_S)
    finally:
        if program.poll() is None:
            os.killpg(program.pid, signal.SIGKILL)
            program.wait()
    assert program.returncode == 130, output.decode()
    assert bot_processes(folder) == []
    summary = run_league(store_url, "stop", workers=2)
    assert summary.status is not None and summary.status.finished
    assert bot_processes(folder) == []
    assert_played_once(store, league_id)
