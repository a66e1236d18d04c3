"""The ladder for real: ``arena serve --ladder`` on the local pool, the reference policies and
an uploaded process bot (the sample random bot); a bot joins while it runs, a new version
replaces the old, and the service killed with SIGKILL and started again loses nothing and
plays nothing twice."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import func, select

from arena.league.create import folder_fingerprint
from arena.league.ladder_schedule import PLACEMENT_SETS
from arena.league.status import bot_names
from arena.store import BotKind, Match, MatchRecordRow, MatchStatus, SeatResult, open_store
from arena.store.ladder import members
from arena.store.leagues import league_named
from arena.store.models import Bot, BotVersion, User

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random"
HEURISTIC_BOT = ROOT / "sample_bots" / "python" / "heuristic"
WAIT_S = 90.0
T = TypeVar("T")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve(tmp_path: Path, url: str, log_name: str) -> subprocess.Popen[bytes]:
    """``arena serve --ladder`` on the database, two local workers, in a process group."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    with (tmp_path / log_name).open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-c", "from arena.cli import app; app()", "serve", "--ladder",
             "--db", url, "--grpc-port", str(free_port()), "--web-port", str(free_port()),
             "--workers", "2", "--data", str(tmp_path / "data")],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def wait_for(found: Callable[[], T | None], what: str, program: subprocess.Popen[bytes]) -> T:
    """The first true value of ``found``, polled until ``WAIT_S`` (the service must live)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        assert program.poll() is None, f"the service ended while waiting for {what}"
        value = found()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def upload(url: str, version: str, folder: Path) -> int:
    """Store a version of alice's bot ``rnd`` as an upload does; its version id."""
    with open_store(url) as store, store.session() as session:
        owner = session.scalars(select(User).where(User.name == "alice")).one_or_none()
        if owner is None:
            owner = User(name="alice")
            session.add(owner)
            session.flush()
        bot = session.scalars(select(Bot).where(Bot.name == "rnd")).one_or_none()
        if bot is None:
            bot = Bot(name="rnd", owner_id=owner.id)
            session.add(bot)
            session.flush()
        row = BotVersion(bot_id=bot.id, version=version, kind=BotKind.PROCESS,
                         path=str(folder), fingerprint=folder_fingerprint(folder) + version,
                         games=["*"], language="python")
        session.add(row)
        session.commit()
        return row.id


def ladder_sets(url: str) -> list[Match]:
    """The ladder's sets in schedule order."""
    with open_store(url) as store, store.session() as session:
        league = league_named(session, "ladder")
        if league is None:
            return []
        return list(session.scalars(select(Match).where(Match.league_id == league.id)
                                    .order_by(Match.position)))


def done_with(url: str, version: int, at_least: int) -> bool:
    """True once ``at_least`` sets of a version are done."""
    return sum(version in match.entrants and match.status == MatchStatus.DONE
               for match in ladder_sets(url)) >= at_least


def test_the_ladder_grows_replaces_and_survives_a_kill(tmp_path: Path) -> None:
    """Sets play continuously; an uploaded bot gets its placement sets first; its new version
    replaces it; SIGKILL and a restart leave every set played exactly once."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    program = serve(tmp_path, url, "serve-1.log")
    try:
        wait_for(lambda: any(m.status == MatchStatus.DONE for m in ladder_sets(url)),
                 "the founders' first set", program)
        first = upload(url, "1", RANDOM_BOT)
        wait_for(lambda: done_with(url, first, PLACEMENT_SETS), "the upload's placement",
                 program)
        sets = ladder_sets(url)
        joined = next(index for index, match in enumerate(sets) if first in match.entrants)
        placement = sets[joined:joined + PLACEMENT_SETS]
        assert all(first in match.entrants for match in placement)

        second = upload(url, "2", HEURISTIC_BOT)
        wait_for(lambda: done_with(url, second, 1), "the new version's first set", program)
        wait_for(lambda: any(match.status == MatchStatus.LEASED for match in ladder_sets(url)),
                 "a set in play", program)
        program.send_signal(signal.SIGKILL)
        program.wait(timeout=30)
        before = {match.id: match.status for match in ladder_sets(url)}
    finally:
        if program.poll() is None:
            program.kill()
            program.wait(timeout=30)

    program = serve(tmp_path, url, "serve-2.log")
    try:
        def all_done() -> bool:
            """True once every set that existed at the kill is done, and one more."""
            now = {match.id: match.status for match in ladder_sets(url)}
            extra = sum(status == MatchStatus.DONE for match_id, status in now.items()
                        if match_id not in before)
            return all(now[match_id] == MatchStatus.DONE for match_id in before) and extra >= 1

        wait_for(all_done, "the sets of the killed run", program)
    finally:
        program.send_signal(signal.SIGINT)
        program.wait(timeout=60)
    assert program.returncode == 0, (tmp_path / "serve-2.log").read_text()

    with open_store(url) as store, store.session() as session:
        league = league_named(session, "ladder")
        assert league is not None
        active = [entrant.bot_version_id for entrant in members(session, league.id)]
        retired = [entrant.bot_version_id for entrant in members(session, league.id,
                                                                 active=False)
                   if entrant.retired_at is not None]
        assert second in active and first not in active and retired == [first]
        matches = list(session.scalars(select(Match).where(Match.league_id == league.id)))
        records = Counter(session.scalars(select(MatchRecordRow.match_id)))
        seats = Counter(session.scalars(select(SeatResult.match_id)))
        first_of_second = min(m.position for m in matches if second in m.entrants)
        new_sets = [m for m in matches if m.position > first_of_second]
        assert all(first not in m.entrants for m in new_sets)
        names = bot_names([entrant.bot_version for entrant in members(
            session, league.id, active=False)])
        old_done = session.scalar(select(func.count()).select_from(SeatResult).where(
            SeatResult.bot_version_id == first))
    assert old_done and old_done >= PLACEMENT_SETS
    assert all(m.status in (MatchStatus.DONE, MatchStatus.PENDING, MatchStatus.LEASED)
               for m in matches)
    for match in matches:
        if match.status == MatchStatus.DONE:
            assert records[match.id] == len(match.rotations)
            assert seats[match.id] == len(set(range(match.seats)))
        else:
            assert records[match.id] == 0 and seats[match.id] == 0
    places = Counter(match.position for match in matches)
    assert max(places.values()) == 1
    assert len({(match.game_id, match.seed) for match in matches}) == len(matches)
    assert all(before_status != MatchStatus.VOID for before_status in before.values())

    boards = arena_json("leaderboard", "--league", "ladder", "--json", "--db", url)
    played = Counter(name for match in matches if match.status == MatchStatus.DONE
                     for name in {names[version] for version in match.entrants})
    assert {row["bot"]: row["sets"] for row in boards["overall"]} == played
    assert {row["bot"]: row["sets"] for row in boards["games"]["briscola"]} == played
    status = arena_json("league", "status", "ladder", "--json", "--db", url)
    assert {row["bot"]: row["sets"] for row in status["entrants"]} == played


def arena_json(*args: str) -> dict[str, Any]:
    """The JSON an ``arena`` command prints (it must succeed)."""
    done = subprocess.run([sys.executable, "-c", "from arena.cli import app; app()", *args],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_bad_ladder_options_are_one_line(tmp_path: Path) -> None:
    """An unknown game, or ``--games`` without ``--ladder``: one ``error:`` line, exit code 2."""
    base = [sys.executable, "-c", "from arena.cli import app; app()", "serve", "--db",
            str(tmp_path / "arena.db"), "--grpc-port", "0", "--web-port", "0"]
    for extra, words in ((["--ladder", "--games", "briscla"], "unknown game 'briscla'"),
                         (["--games", "briscola"], "--games is for the ladder")):
        done = subprocess.run([*base, *extra], capture_output=True, text=True, timeout=120,
                              check=False, env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, done.stderr
        assert lines[0].startswith("error: ") and words in lines[0]
