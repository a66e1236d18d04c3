"""A private redis-server for tests (``arena.league.redis_local``) in a short temp folder.

``redis_server`` (a fixture) starts one per test and stops it at the end; ``stop``, ``kill``
and ``start`` let a test take the broker away and bring it back on the same socket (empty, as a
restarted Redis without persistence is). Without ``redis-server`` the tests skip, except under
``CI=true``, where they fail.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.league.redis_local import RedisServer, RedisUnavailable, redis_binary


def unavailable(reason: str) -> None:
    """Skip the test, or fail it under CI=true."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"redis-server is required under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A fresh redis-server for one test, stopped and removed afterwards."""
    try:
        binary = redis_binary()
    except RedisUnavailable as error:
        unavailable(str(error))
    folder = Path(tempfile.mkdtemp(prefix="cat-redis-", dir="/tmp"))
    server = RedisServer(binary, folder)
    try:
        server.start()
    except RedisUnavailable as error:
        shutil.rmtree(folder, ignore_errors=True)
        unavailable(str(error))
    try:
        yield server
    finally:
        server.kill()
        shutil.rmtree(folder, ignore_errors=True)
