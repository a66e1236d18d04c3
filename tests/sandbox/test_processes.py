"""A container's process count against its limit: from its cgroup's files (v1 and v2), from
Docker's stats answer, and from a real container that fills its limit."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox.processes import (
    ProcessCount,
    cgroup_process_count,
    container_process_count,
    stats_process_count,
)

ID = "cd" * 32

FILL_LIMIT = """
import os, time
while True:
    try:
        if os.fork() == 0:
            time.sleep(600)
    except OSError:
        time.sleep(0.01)
"""


def test_cgroup_v1_current_and_limit(tmp_path: Path) -> None:
    folder = tmp_path / "pids" / "docker" / ID
    folder.mkdir(parents=True)
    (folder / "pids.current").write_text("64\n")
    (folder / "pids.max").write_text("64\n")
    count = cgroup_process_count(ID, tmp_path)
    assert count == ProcessCount(64, 64) and count.at_limit


def test_cgroup_v2_unlimited_is_never_at_its_limit(tmp_path: Path) -> None:
    folder = tmp_path / "system.slice" / f"docker-{ID}.scope"
    folder.mkdir(parents=True)
    (folder / "pids.current").write_text("5000\n")
    (folder / "pids.max").write_text("max\n")
    count = cgroup_process_count(ID, tmp_path)
    assert count == ProcessCount(5000, None) and not count.at_limit


def test_no_cgroup_is_none(tmp_path: Path) -> None:
    assert cgroup_process_count(ID, tmp_path) is None


def test_the_stats_answer() -> None:
    assert stats_process_count({"pids_stats": {"current": 3, "limit": 64}}) == ProcessCount(3, 64)
    assert stats_process_count({"pids_stats": {"current": 3}}) == ProcessCount(3, None)
    assert stats_process_count({"pids_stats": {}}) is None
    assert not ProcessCount(63, 64).at_limit


@pytest.mark.docker
def test_a_real_container_at_its_limit_is_seen_there(docker_required: Any,
                                                     base_image: str) -> None:
    """A process that starts sleepers, retrying when refused, fills a 12-process limit; a
    quiet one does not (read as the agent reads it: the cgroup where this host shows it, else
    stats)."""
    filling = docker_required.containers.run(
        base_image, ["python", "-c", FILL_LIMIT], detach=True,
        pids_limit=12, network_mode="none", labels={"cardarena.test": "processes"})
    quiet = docker_required.containers.run(
        base_image, ["sleep", "600"], detach=True, pids_limit=12, network_mode="none",
        labels={"cardarena.test": "processes"})
    try:
        seen = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            seen = container_process_count(filling.id, docker_required)
            if seen is not None and seen.at_limit:
                break
            time.sleep(0.05)
        assert seen == ProcessCount(12, 12)
        calm = container_process_count(quiet.id, docker_required)
        assert calm is not None and calm.limit == 12 and not calm.at_limit
    finally:
        filling.remove(force=True)
        quiet.remove(force=True)
