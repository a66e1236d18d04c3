"""Running leagues here: ``run_match`` under its lease, the local pool, interrupt and resume.

Every test runs on SQLite and on a private PostgreSQL (the fixtures of ``tests/store``). The
entrants are reference policies and the sample random bot, run as a real process.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta
from multiprocessing import get_context
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from store import conftest as store_fixtures

from arena.league.create import create_league
from arena.league.local import run_league
from arena.league.run_match import DONE, RETRY, SKIPPED, VOID, process_store, run_match
from arena.match import MatchRecord
from arena.store import Match, MatchRecordRow, MatchStatus, SeatResult, Store, claim_match
from arena.store.models import utc_now
from tests.interrupts import default_sigint

pg_cluster = store_fixtures.pg_cluster
store_url = store_fixtures.store_url
store = store_fixtures.store

SAMPLE_RANDOM = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "random"

WAIT_S = 120.0
"""The longest a test waits for a league to reach a state."""

RUN_APP = ("import typer; from arena.cli import ArenaGroup; "
           "from arena.cli.league import league_app; "
           "app = typer.Typer(cls=ArenaGroup); app.add_typer(league_app, name='league'); app()")
"""``arena league ...`` as a separate program."""


def match_ids(store: Store, league_id: int) -> list[str]:
    """The league's match ids."""
    with store.session() as session:
        ids = session.scalars(select(Match.id).where(Match.league_id == league_id)).all()
        session.commit()
    return sorted(ids)


def assert_played_once(store: Store, league_id: int) -> None:
    """Every match is done after one counted attempt, with one row per seat and per deal."""
    with store.session() as session:
        matches = session.scalars(select(Match).where(Match.league_id == league_id)).all()
        assert matches
        for match in matches:
            assert (match.status, match.attempts, match.lease_expires) == (
                MatchStatus.DONE, 1, None), match.id
            seats = session.scalars(select(SeatResult.seat).where(
                SeatResult.match_id == match.id).order_by(SeatResult.seat)).all()
            assert seats == list(range(match.seats))
            records = session.scalars(select(MatchRecordRow).where(
                MatchRecordRow.match_id == match.id).order_by(MatchRecordRow.deal)).all()
            assert [row.deal for row in records] == list(range(len(match.rotations)))
            for row in records:
                record = MatchRecord.from_dict({key: value for key, value in row.record.items()
                                                if key not in ("rotation", "entrants")})
                assert (record.game, record.seed) == (match.game_id, match.seed)
        session.commit()


def test_run_match_plays_once(store: Store, store_url: str) -> None:
    """A match is played and completed once; a second call finds it done and skips it."""
    league_id = create_league(store, "one", ["heuristic", str(SAMPLE_RANDOM)], ["briscola"])
    [match_id] = match_ids(store, league_id)
    assert run_match(match_id, store_url=store_url, owner="first") == DONE
    assert run_match(match_id, store_url=store_url, owner="second") == SKIPPED
    assert_played_once(store, league_id)
    with store.session() as session:
        labels = session.get_one(MatchRecordRow, 1).record["policies"]
        assert sorted(labels) == ["heuristic", "random (bot)"]


def race_run_match(url: str, match_id: str, owner: str, barrier: Barrier,
                   outcomes: Queue[tuple[str, str]]) -> None:
    """In its own process: open the store, wait for the other racer, run the match, report."""
    process_store(url)
    barrier.wait(timeout=WAIT_S)
    outcomes.put((owner, run_match(match_id, store_url=url, owner=owner)))


def test_racing_run_match_calls_one_wins(store: Store, store_url: str) -> None:
    """Two processes calling ``run_match`` on one match at once: one plays it, one skips."""
    league_id = create_league(store, "race", ["random", "heuristic"], ["scopa"])
    [match_id] = match_ids(store, league_id)
    context = get_context("spawn")
    barrier = context.Barrier(2)
    outcomes = context.Queue()
    racers = [context.Process(target=race_run_match,
                              args=(store_url, match_id, owner, barrier, outcomes))
              for owner in ("left", "right")]
    for racer in racers:
        racer.start()
    results = sorted(outcomes.get(timeout=WAIT_S)[1] for _ in racers)
    for racer in racers:
        racer.join(timeout=WAIT_S)
        assert racer.exitcode == 0
    assert results == [DONE, SKIPPED]
    assert_played_once(store, league_id)


def test_a_failing_match_stops_at_the_attempt_cap(store: Store, store_url: str,
                                                  tmp_path: Path) -> None:
    """A match whose bot folder is gone fails each attempt and is void after the third."""
    folder = tmp_path / "gone"
    shutil.copytree(SAMPLE_RANDOM, folder)
    league_id = create_league(store, "poison", ["random", str(folder)], ["briscola"])
    shutil.rmtree(folder)
    [match_id] = match_ids(store, league_id)
    outcomes = [run_match(match_id, store_url=store_url, owner=f"w{n}") for n in range(4)]
    assert outcomes == [RETRY, RETRY, VOID, SKIPPED]
    with store.session() as session:
        match = session.get_one(Match, match_id)
        assert (match.status, match.attempts) == (MatchStatus.VOID, 3)
        assert match.last_error is not None and match.last_error.startswith("VOID_INFRA")
        assert session.scalar(select(func.count()).select_from(SeatResult)) == 0


def test_local_pool_runs_every_match_once(store: Store, store_url: str) -> None:
    """Two workers play a league of policies and a process bot, each match exactly once."""
    league_id = create_league(store, "pool", ["heuristic", "random", str(SAMPLE_RANDOM)],
                              ["briscola", "tressette"])
    summary = run_league(store_url, "pool", workers=2)
    assert not summary.interrupted
    assert summary.outcomes == {DONE: len(match_ids(store, league_id))}
    assert summary.status is not None and summary.status.finished
    assert_played_once(store, league_id)


def test_a_partial_run_resumes(store: Store, store_url: str) -> None:
    """A run stopped after two matches is resumed: the rest run, none twice."""
    league_id = create_league(store, "halves", ["heuristic", "random", str(SAMPLE_RANDOM)],
                              ["briscola", "scopa"])
    first = run_league(store_url, "halves", workers=2, limit=2)
    assert first.outcomes == {DONE: 2}
    assert first.status is not None and first.status.done == 2
    second = run_league(store_url, "halves", workers=2)
    assert second.outcomes == {DONE: len(match_ids(store, league_id)) - 2}
    assert_played_once(store, league_id)


def test_a_league_with_a_poison_match_ends(store: Store, store_url: str,
                                          tmp_path: Path) -> None:
    """The pool retries a failing match up to the cap, then the run ends with it void."""
    folder = tmp_path / "gone"
    shutil.copytree(SAMPLE_RANDOM, folder)
    create_league(store, "poison", ["random", str(folder)], ["briscola"])
    shutil.rmtree(folder)
    summary = run_league(store_url, "poison", workers=2)
    assert summary.outcomes == {RETRY: 2, VOID: 1}
    assert summary.status is not None and summary.status.finished
    assert len(summary.status.void) == 1


def test_ctrl_c_hands_back_the_leases_and_the_league_resumes(store: Store,
                                                             store_url: str) -> None:
    """Ctrl-C in the middle of ``league run``: the running matches are handed back without
    counting an attempt (exit code 130); running it again plays the rest, none twice."""
    league_id = create_league(store, "stop", ["heuristic", str(SAMPLE_RANDOM), "random"],
                              ["briscola", "scopa", "tressette"], deals=3)
    program = subprocess.Popen(
        [sys.executable, "-c", RUN_APP, "league", "run", "stop", "--workers", "2",
         "--db", store_url],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=default_sigint)
    try:
        wait_for_running(store, league_id, program)
        os.killpg(program.pid, signal.SIGINT)
        output, _ = program.communicate(timeout=WAIT_S)
    finally:
        if program.poll() is None:
            os.killpg(program.pid, signal.SIGKILL)
            program.wait()
    assert program.returncode == 130, output.decode()
    with store.session() as session:
        rows = session.execute(select(Match.status, Match.attempts).where(
            Match.league_id == league_id)).all()
        session.commit()
    assert MatchStatus.LEASED not in {status for status, _ in rows}
    assert {attempts for status, attempts in rows if status is MatchStatus.PENDING} == {0}
    assert any(status is MatchStatus.PENDING for status, _ in rows)
    summary = run_league(store_url, "stop", workers=2)
    assert summary.status is not None and summary.status.finished
    assert_played_once(store, league_id)


def wait_for_running(store: Store, league_id: int, program: subprocess.Popen[bytes]) -> None:
    """Wait until a match of the league is done and another is being played."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        assert program.poll() is None, "the run ended before it could be interrupted"
        with store.session() as session:
            counts = dict(session.execute(select(Match.status, func.count()).where(
                Match.league_id == league_id).group_by(Match.status)).all())
            session.commit()
        if counts.get(MatchStatus.DONE, 0) >= 1 and counts.get(MatchStatus.LEASED, 0) >= 1:
            return
        time.sleep(0.02)
    pytest.fail("no match was running in time")


def test_an_expired_lease_is_swept_and_played(store: Store, store_url: str) -> None:
    """A match left leased by a worker that died is played once its lease has run out."""
    league_id = create_league(store, "swept", ["random", "heuristic"], ["briscola", "scopa"])
    with store.session() as session:
        ghost = session.scalars(select(Match.id).where(Match.league_id == league_id,
                                                      Match.game_id == "scopa")).one()
        session.commit()
        assert claim_match(session, ghost, "ghost", 60, now=utc_now() - timedelta(minutes=5))
    summary = run_league(store_url, "swept", workers=2)
    assert summary.outcomes == {DONE: 2}
    with store.session() as session:
        match = session.get_one(Match, ghost)
        assert (match.status, match.attempts) == (MatchStatus.DONE, 2)
        session.execute(update(Match).where(Match.id == ghost).values(attempts=1))
        session.commit()
    assert_played_once(store, league_id)


def test_a_worker_killed_mid_match_is_replaced(store: Store, store_url: str) -> None:
    """kill -9 of a pool worker during a match: a new pool goes on, the match runs again (its
    attempt counted) and every match ends with one result row per seat. (The broken pool
    stops the other worker too, so its match may have an attempt counted as well.)"""
    league_id = create_league(store, "killed", ["heuristic", str(SAMPLE_RANDOM), "random"],
                              ["briscola", "scopa"])
    victims: list[tuple[str, int]] = []
    killer = threading.Thread(target=kill_a_worker, args=(store, league_id, victims))
    killer.start()
    try:
        summary = run_league(store_url, "killed", workers=2)
    finally:
        killer.join(timeout=WAIT_S)
    [(victim, expected)] = victims
    assert summary.status is not None and summary.status.finished
    with store.session() as session:
        assert session.get_one(Match, victim).attempts == expected
        assert session.scalar(select(func.max(Match.attempts)).where(
            Match.league_id == league_id)) <= 2
        session.execute(update(Match).where(Match.league_id == league_id).values(attempts=1))
        session.commit()
    assert_played_once(store, league_id)


def kill_a_worker(store: Store, league_id: int, victims: list[tuple[str, int]]) -> None:
    """Wait for a leased match, kill -9 the pool worker holding it (named in its owner), and
    note the match with the attempts it should end with: 2 if the worker died holding it, 1
    if it had finished the match just before."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        with store.session() as session:
            row = session.execute(select(Match.id, Match.lease_owner).where(
                Match.league_id == league_id, Match.status == MatchStatus.LEASED)).first()
            session.commit()
        if row is not None and row.lease_owner:
            pid = int(row.lease_owner.rsplit(":", 1)[1])
            os.kill(pid, signal.SIGKILL)
            while is_running(pid):
                time.sleep(0.01)
            with store.session() as session:
                status = session.get_one(Match, row.id).status
                session.commit()
            victims.append((row.id, 1 if status is MatchStatus.DONE else 2))
            return
        time.sleep(0.01)


def is_running(pid: int) -> bool:
    """True while a process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")
