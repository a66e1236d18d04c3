"""docs/tour.md runs as written: its ``sh`` blocks, one after the other in one shell, in an
empty folder, from ``arena play`` to a league of a Docker bot on Celery (Redis, a worker), its
leaderboard and its report. Needs Docker and redis-server (skipped without them, a failure
under CI=true)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.league.redis_local import RedisUnavailable, redis_binary
from arena.sandbox.errors import DockerUnavailable

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[1]
TOUR = ROOT / "docs" / "tour.md"
IMAGE = "cardarena-bot/tourbot:0.1.0"
"""The image the tour builds (removed afterwards)."""

TOUR_TIMEOUT_S = 900
"""How long the whole tour may take (about a minute with the base image built)."""


def unavailable(reason: str) -> None:
    """Skip the test, or fail it under CI=true."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


def sh_blocks(markdown: str) -> list[str]:
    """The fenced ``sh`` blocks of a Markdown page, in order."""
    return re.findall(r"^```sh\n(.*?)^```$", markdown, flags=re.MULTILINE | re.DOTALL)


@pytest.fixture
def docker_client() -> Iterator[object]:
    """The Docker client (the test is skipped without one); the tour's image is removed after
    the test."""
    from arena.sandbox.engine import docker_client as connect
    try:
        client = connect()
    except DockerUnavailable as error:
        unavailable(str(error))
    try:
        redis_binary()
    except RedisUnavailable as error:
        unavailable(str(error))
    try:
        import celery  # noqa: F401
    except ImportError:
        unavailable("celery is not installed (pip install -e '.[celery]')")
    yield client
    with contextlib.suppress(Exception):
        client.images.remove(IMAGE, force=True)  # type: ignore[attr-defined]


def stop_leftovers(session: int, folder: Path) -> None:
    """End what the tour left running after a failure: its process group (the worker) and the
    Redis server it started (by its pid file)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(session, signal.SIGKILL)
    pid_file = folder / "redis.pid"
    if pid_file.exists():
        with contextlib.suppress(ValueError, ProcessLookupError, PermissionError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)


def test_the_page_has_the_tour_steps() -> None:
    """From ``arena play`` to a Celery league of a Docker bot, with leaderboard and report."""
    script = "\n".join(sh_blocks(TOUR.read_text(encoding="utf-8")))
    order = ["arena play briscola", "arena bot new tourbot", "arena bot check tourbot",
             "arena league run local", "arena images build-base", "arena bot build tourbot",
             f"--bot image:{IMAGE}", "redis-server", "arena worker --broker",
             "arena league run celery --broker", "arena leaderboard --league celery",
             "arena report celery"]
    places = [script.find(step) for step in order]
    assert -1 not in places, [step for step, place in zip(order, places, strict=True)
                              if place == -1]
    assert places == sorted(places)
    assert "--deals 1" in script and "--games briscola,scopa" in script


def test_the_tour_runs_as_written(docker_client: object, tmp_path: Path) -> None:
    """Every block runs in one shell in an empty folder; the Celery league finishes both
    matches with the Docker bot, and the report is written."""
    script = ("set -euo pipefail\nPS4='+ [${SECONDS} s] '\nset -x\n"
              + "\n".join(sh_blocks(TOUR.read_text(encoding="utf-8"))))
    scripts = sysconfig.get_path("scripts")
    env = {**os.environ, "PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "120"}
    process = subprocess.Popen(["bash", "-c", script], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=TOUR_TIMEOUT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.returncode != 0:  # the tour stops its worker and Redis when it gets there
            stop_leftovers(process.pid, tmp_path)
    worker_log = tmp_path / "worker.log"
    assert process.returncode == 0, (output[-4000:], worker_log.read_text()[-2000:]
                                     if worker_log.exists() else "")
    assert "bot tourbot: all 6 checks passed" in output
    assert "league celery: 2/2 matches finished" in output.lower()
    board = subprocess.run(["arena", "leaderboard", "--league", "celery", "--db", "tour.db",
                            "--json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                           check=False, timeout=120)
    assert board.returncode == 0, board.stderr
    games = json.loads(board.stdout)["games"]
    assert set(games) == {"briscola", "scopa"}
    for ratings in games.values():
        assert len(ratings) == 2 and all(rating["contests"] == 1 for rating in ratings)
        assert any("tourbot" in rating["bot"] for rating in ratings)
    report = tmp_path / "reports" / "celery" / "report.html"
    assert 'name="viewport"' in report.read_text(encoding="utf-8")
    assert not (tmp_path / "redis.pid").exists(), "redis-server was not stopped"
