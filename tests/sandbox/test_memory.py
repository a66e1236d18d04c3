"""A container's memory as ``docker stats`` counts it: from its cgroup's files (v1 and v2)
and from Docker's stats answer."""

from __future__ import annotations

from pathlib import Path

from arena.sandbox.memory import cgroup_memory_bytes, stats_memory_bytes

ID = "ab" * 32


def test_cgroup_v1_usage_less_the_inactive_file_cache(tmp_path: Path) -> None:
    folder = tmp_path / "memory" / "docker" / ID
    folder.mkdir(parents=True)
    (folder / "memory.usage_in_bytes").write_text("10000\n")
    (folder / "memory.stat").write_text("cache 5000\ntotal_inactive_file 3000\n")
    assert cgroup_memory_bytes(ID, tmp_path) == 7000


def test_cgroup_v2_usage_less_the_inactive_file_cache(tmp_path: Path) -> None:
    folder = tmp_path / "system.slice" / f"docker-{ID}.scope"
    folder.mkdir(parents=True)
    (folder / "memory.current").write_text("8192\n")
    (folder / "memory.stat").write_text("anon 4096\ninactive_file 1024\n")
    assert cgroup_memory_bytes(ID, tmp_path) == 7168


def test_no_cgroup_is_none(tmp_path: Path) -> None:
    assert cgroup_memory_bytes(ID, tmp_path) is None


def test_the_stats_answer_is_read_as_docker_stats_reads_it() -> None:
    assert stats_memory_bytes({"memory_stats": {
        "usage": 9000, "stats": {"total_inactive_file": 1000}}}) == 8000
    assert stats_memory_bytes({"memory_stats": {"usage": 9000, "stats": {
        "inactive_file": 500}}}) == 8500
    assert stats_memory_bytes({"memory_stats": {}}) is None
