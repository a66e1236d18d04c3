"""Fixtures for the sandbox tests: a Docker engine (skipped without one, a failure under CI),
the base image, bot images built once per session, short socket roots and a leftovers check.

Mark a test ``@pytest.mark.docker`` or ask for ``docker_required`` when it needs the engine.
``leftovers`` checks, after the test, that no container this process labelled, no socket
folder under ``short_root`` and no child process is left.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import labels
from arena.sandbox.errors import DockerUnavailable

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_RANDOM = ROOT / "sample_bots" / "python" / "random"

BotImageFactory = Callable[[Path], Any]


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``docker`` marker."""
    config.addinivalue_line("markers", "docker: needs a Docker engine (skipped without one, "
                                       "a failure under CI=true)")


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


def our_containers(client: Any) -> list[Any]:
    """Containers (running or not) that this process labelled."""
    return list(client.containers.list(all=True, ignore_removed=True, filters={"label": [
        f"{labels.SANDBOX}=1", f"{labels.ARENA_PID}={os.getpid()}"]}))


def child_processes() -> list[int]:
    """The pids of this process's children still alive (zombies included)."""
    me = str(os.getpid())
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            children.append(int(entry.name))
    return children


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
    extra = set(child_processes()) - before
    assert not extra, f"processes left behind: {sorted(extra)}"
