"""A worker killed with ``kill -9`` together with its reaper leaves its containers and socket
folders behind; the next worker's janitor removes them when it starts.

A real ``arena worker`` (Celery, real Redis, a SQLite league) plays the random sample bot's
image against a process bot. Once a container runs, the test freezes the worker's reaper
(SIGSTOP, so that it cannot clean up), kills the worker and then the reaper with SIGKILL, and
checks that the container is still there. A second worker, started with its janitor on
(``CARDARENA_JANITOR_S=0``: at start only), must remove the container and its socket folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from sandbox.conftest import (  # noqa: F401 - fixtures
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
    sandbox_containers,
    wait_for,
)

from arena.league.celery_app import CelerySettings, make_celery_app
from arena.league.tasks import send_match
from arena.sandbox import labels
from arena.sandbox.images import BotImage
from arena.sandbox.janitor import INTERVAL_ENV

from .redis_server import RedisServer, redis_server  # noqa: F401 - the fixture
from .test_die_with_parent import entrants, new_league

REAPER = "arena.sandbox.reaper"


def reapers(tree: set[int]) -> list[int]:
    """The reaper processes in a process tree."""
    return [pid for pid in tree if REAPER in command_line(pid)]


def test_the_next_workers_janitor_removes_what_a_killed_worker_left(
        arena: Arena, bot_image: Callable[[Path], BotImage],  # noqa: F811
        redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    client = require_docker()
    db = f"sqlite:///{arena.temp.parent / 'arena.db'}"
    match_ids = new_league(db, entrants(arena, bot_image), deals=2)
    monkeypatch.setenv(INTERVAL_ENV, "off")
    first = arena.start([ARENA, "worker", "--broker", redis_server.url, "--db", db])
    app = make_celery_app(CelerySettings(redis_server.url))
    for match_id in match_ids:
        assert send_match(app, match_id, db)
    tree = arena.matches_running(client, first)
    frozen = reapers(tree)
    assert frozen, f"no reaper under the worker: {[command_line(pid) for pid in tree]}"
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    arena.kill(first, tree)
    for pid in frozen:
        os.kill(pid, signal.SIGKILL)
    left = sandbox_containers(client, arena.recorded)
    assert left, "the killed worker left no container (nothing to test)"
    folders = [Path(container.labels[labels.SOCKET_DIR]) for container in left]
    assert all(folder.exists() for folder in folders)

    monkeypatch.setenv(INTERVAL_ENV, "0")
    second = arena.start([ARENA, "worker", "--broker", redis_server.url, "--db", db])
    try:
        def collected() -> bool | None:
            """True once the killed worker's containers and socket folders are gone."""
            if sandbox_containers(client, arena.recorded):
                return None
            return True if not any(folder.exists() for folder in folders) else None

        wait_for(collected, RUNNING_WITHIN_S, "the janitor's collection", second)
    finally:
        second.send_signal(signal.SIGTERM)
        try:
            second.wait(timeout=60)
        except subprocess.TimeoutExpired:
            second.kill()
            second.wait()
    assert "removed" in arena.output() and "leftover container" in arena.output()
