"""Fixtures for the bots in other languages: toolchains (skipped without them, a failure under
CI) and bot folders built once per session with their own ``build`` command."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.sandbox.conftest import in_ci, require_docker

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = ROOT / "sample_bots"


def require_tools(*names: str) -> None:
    """Skip the test when a program is missing from PATH (fail it under CI=true)."""
    missing = [name for name in names if shutil.which(name) is None]
    if not missing:
        return
    message = f"missing toolchain: {', '.join(missing)} (scripts/test installs it)"
    if in_ci():
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def base_image() -> None:
    """The sandbox's base image, built when missing (skipped without Docker)."""
    client = require_docker()
    from docker.errors import ImageNotFound

    from arena.sandbox.images import BASE_IMAGE, build_base
    try:
        client.images.get(BASE_IMAGE)
    except ImageNotFound:
        build_base()
