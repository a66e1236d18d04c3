"""``kill -9`` of a league's arena takes everything it started with it: ``arena league run``
(its pool workers, their bots, the bots' daemons, their containers) and ``arena worker``
(Celery, one process or several), each a real program on a real SQLite league, with a process
bot that leaves a daemon behind (a grandchild in a session of its own) and the random sample
bot in a container; and ``arena serve`` running a league (its pool workers, started by a
thread of the service).

Each test waits until matches are running (a bot process, its daemon and a running container
seen under the program's process tree), records the tree, kills only the program's own
process with SIGKILL, and then requires that within ``GONE_WITHIN_S`` no process carrying the
test's marker in its environment, none of the recorded processes, no daemon, no container
labelled by one of them and no bot or socket folder is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sandbox.conftest import (  # noqa: F401 - fixtures
    SAMPLE_RANDOM,
    arena_folder,
    base_image,
    bot_image,
    require_docker,
)
from sandbox.orphans import (
    ARENA,
    RUNNING_WITHIN_S,
    Arena,
    command_line,
    descendants,
    escaper_bot,
    wait_for,
)
from sqlalchemy import select

from arena.league.celery_app import CelerySettings, make_celery_app
from arena.league.create import LeagueSettings, create_league
from arena.league.tasks import send_match
from arena.match.timecontrol import TimeControl
from arena.sandbox.images import BotImage
from arena.store import Match, open_store

from .redis_server import RedisServer, redis_server  # noqa: F401 - the fixture


def new_league(db: str, entrants: list[str], deals: int) -> list[str]:
    """A 2-seat briscola league; its match ids."""
    with open_store(db) as store:
        league_id = create_league(store, "orphans", entrants, games=["briscola"], deals=deals,
                                  settings=LeagueSettings(TimeControl(decision_ms=5000)))
        with store.session() as session:
            return list(session.scalars(select(Match.id).where(Match.league_id == league_id)))


def entrants(arena: Arena, bot_image: Callable[[Path], BotImage]) -> list[str]:  # noqa: F811
    """The escaper (a process bot) and the random sample bot's image."""
    escaper = escaper_bot(arena.temp.parent / "escaper")
    return [str(escaper), f"image:{bot_image(SAMPLE_RANDOM).ref}"]


def kill_and_check(arena: Arena, client: Any, program: subprocess.Popen[bytes]) -> None:
    """SIGKILL the program's own process once matches run, then nothing may be left."""
    arena.kill(program, arena.matches_running(client, program))
    try:
        arena.assert_nothing_left(client)
    finally:
        with contextlib.suppress(OSError):
            os.killpg(program.pid, signal.SIGKILL)


def test_kill_9_of_league_run_leaves_nothing(
        arena: Arena, bot_image: Callable[[Path], BotImage]) -> None:  # noqa: F811
    """``arena league run`` with two pool workers, killed while both play: its workers, their
    bots (kept between matches), the bots' daemons, the containers and the folders go too."""
    client = require_docker()
    db = f"sqlite:///{arena.temp.parent / 'arena.db'}"
    new_league(db, entrants(arena, bot_image), deals=4)
    program = arena.start([ARENA, "league", "run", "orphans", "--db", db, "--workers", "2"])
    kill_and_check(arena, client, program)


@pytest.mark.parametrize("concurrency", [1, 2])
def test_kill_9_of_arena_worker_leaves_nothing(
        concurrency: int, arena: Arena, bot_image: Callable[[Path], BotImage],  # noqa: F811
        redis_server: RedisServer) -> None:  # noqa: F811
    """``arena worker`` (Celery, real Redis), one process or a supervisor and two, killed
    while matches run: its worker processes, bots, daemons, containers and folders go too."""
    client = require_docker()
    db = f"sqlite:///{arena.temp.parent / 'arena.db'}"
    match_ids = new_league(db, entrants(arena, bot_image), deals=concurrency + 1)
    program = arena.start([ARENA, "worker", "--broker", redis_server.url, "--db", db,
                           "--concurrency", str(concurrency)])
    app = make_celery_app(CelerySettings(redis_server.url))
    for match_id in match_ids:
        assert send_match(app, match_id, db)
    kill_and_check(arena, client, program)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def remote(port: int, *args: str, token: str = "") -> str:
    """``arena remote ...`` against the service; its output (it must succeed)."""
    env = {**os.environ, "ARENA_SERVER": f"127.0.0.1:{port}", "ARENA_TOKEN": token}
    done = subprocess.run([ARENA, "remote", *args], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_kill_9_of_serve_takes_its_league_workers(arena: Arena) -> None:
    """``arena serve`` running a league (of policies, played in its pool workers), killed:
    the workers, started by the service's league thread, go too."""
    client = require_docker()
    port = free_port()
    program = arena.start([ARENA, "serve", "--db", str(arena.temp.parent / "arena.db"),
                           "--data", str(arena.temp.parent / "data"), "--grpc-port", str(port),
                           "--web-port", str(free_port())])

    def registered() -> str | None:
        """The token, once the service answers."""
        env = {**os.environ, "ARENA_SERVER": f"127.0.0.1:{port}"}
        done = subprocess.run([ARENA, "remote", "register", "alice"], env=env,
                              capture_output=True, text=True, timeout=120, check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    token = wait_for(registered, RUNNING_WITHIN_S, "the service to answer", program)
    remote(port, "league", "create", "busy", "--bot", "random", "--bot", "heuristic",
           "--games", "briscola", "--deals", "400", token=token)
    remote(port, "league", "run", "busy", token=token)

    def workers() -> set[int] | None:
        """The service's tree once two pool workers run."""
        tree = descendants(program.pid)
        spawned = [pid for pid in tree if "multiprocessing.spawn" in command_line(pid)]
        return tree if len(spawned) >= 2 else None

    arena.kill(program, wait_for(workers, RUNNING_WITHIN_S, "the league's workers", program))
    arena.assert_nothing_left(client)
