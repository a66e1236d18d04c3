"""Fixtures for the sandbox tests: a Docker engine (skipped without one, a failure under CI),
the base image, bot images built once per session, short socket roots, a league's short
folder (``league_root``) and a leftovers check.

Mark a test ``@pytest.mark.docker`` or ask for ``docker_required`` when it needs the engine.
``leftovers`` checks, after the test, that no container this process labelled, no socket
folder under ``short_root`` and no child process is left (but the process's reaper, which
lives as long as the process: ``arena.sandbox.lifeline``). ``arena`` (``arena_folder``, to
import elsewhere) is the folder of a program a test kills (``orphans``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import labels
from arena.sandbox.errors import DockerUnavailable
from arena.sandbox.lifeline import reaper_pid

from .orphans import Arena, process_stats

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_RANDOM = ROOT / "sample_bots" / "python" / "random"

BotImageFactory = Callable[[Path], Any]


def in_ci() -> bool:
    """True under CI, where a missing Docker engine fails the tests instead of skipping them."""
    return os.environ.get("CI") == "true"


def require_docker() -> Any:
    """The Docker client; skip the test without one (fail it under CI)."""
    from arena.sandbox.engine import docker_client
    try:
        return docker_client()
    except DockerUnavailable as error:
        if in_ci():
            pytest.fail(f"Docker is required under CI: {error}")
        pytest.skip(str(error))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked ``docker`` need the engine."""
    if item.get_closest_marker("docker") is not None:
        require_docker()


@pytest.fixture
def docker_required() -> Any:
    """The Docker client (the test is skipped without Docker, and fails under CI=true)."""
    return require_docker()


@pytest.fixture(scope="session")
def base_image() -> str:
    """The base image's id, built when missing (``arena images build-base``)."""
    client = require_docker()
    from docker.errors import ImageNotFound

    from arena.sandbox.images import BASE_IMAGE
    try:
        return str(client.images.get(BASE_IMAGE).id)
    except ImageNotFound:
        pass
    try:
        from arena.sandbox.images import build_base
    except ImportError:
        pytest.fail(f"the base image {BASE_IMAGE} is missing; run `arena images build-base`")
    return build_base()


@pytest.fixture(scope="session")
def bot_image(base_image: str) -> BotImageFactory:
    """Build a bot folder's image (once per session and folder) and return its ``BotImage``."""
    from arena.sandbox.images import build_bot_image
    built: dict[Path, Any] = {}

    def build(folder: Path) -> Any:
        """The folder's image, built on the base image the first time."""
        folder = Path(folder).resolve()
        if folder not in built:
            built[folder] = build_bot_image(folder)
        return built[folder]

    return build


@pytest.fixture
def short_root() -> Iterator[Path]:
    """A fresh short folder for socket folders (socket paths are limited to 107 bytes)."""
    root = Path(tempfile.mkdtemp(prefix="cat-", dir="/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def league_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh short folder for a league's database; its ``tmp`` is the TMPDIR of the league's
    workers (their bot and socket folders)."""
    folder = Path(tempfile.mkdtemp(prefix="cat-lg-", dir="/tmp"))
    (folder / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(folder / "tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def our_containers(client: Any) -> list[Any]:
    """Containers (running or not) that this process labelled."""
    return list(client.containers.list(all=True, ignore_removed=True, filters={"label": [
        f"{labels.SANDBOX}=1", f"{labels.ARENA_PID}={os.getpid()}"]}))


def child_processes() -> list[int]:
    """The pids of this process's children still alive (zombies included)."""
    me = str(os.getpid())
    return [pid for pid, fields in process_stats() if fields[1] == me]


@pytest.fixture
def leftovers(short_root: Path) -> Iterator[Path]:
    """Yield ``short_root``; afterwards nothing may be left: no container this process
    labelled, no socket folder under ``short_root``, no child process."""
    client = require_docker()
    before = set(child_processes())
    yield short_root
    containers = our_containers(client)
    for container in containers:
        container.remove(force=True)
    assert not containers, f"containers left behind: {[c.name for c in containers]}"
    assert list(short_root.iterdir()) == [], f"socket folders left: {list(short_root.iterdir())}"
    extra = set(child_processes()) - before - {reaper_pid()}
    assert not extra, f"processes left behind: {sorted(extra)}"


@pytest.fixture(name="arena")
def arena_folder() -> Iterator[Arena]:
    """A short folder for a program a test kills: its TMPDIR, the daemons' pids, its output;
    whatever the program left is killed and removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="cat-orph-", dir="/tmp"))
    (folder / "tmp").mkdir()
    (folder / "daemons").mkdir()
    found = Arena(uuid.uuid4().hex, folder / "tmp", folder / "daemons")
    try:
        yield found
    finally:
        found.clean_up(require_docker())
        shutil.rmtree(folder, ignore_errors=True)
