"""A running container's memory in use, as ``docker stats`` counts it: the cgroup's usage less
its inactive file cache, read from the cgroup's files (v1 or v2) where this host shows them,
else from Docker's one-shot stats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.sandbox.cgroups import CGROUP_ROOT, cgroup_folders, container_figure


def _stat_value(stat: str, names: tuple[str, ...]) -> int:
    """The first of ``names`` in a ``memory.stat`` text (0 when none is there)."""
    values = dict(line.split(" ", 1) for line in stat.splitlines() if " " in line)
    for name in names:
        if name in values:
            return int(values[name])
    return 0


def cgroup_memory_bytes(container_id: str, root: Path = CGROUP_ROOT) -> int | None:
    """The container's memory from its cgroup's files, or None when they are not here."""
    for folder in cgroup_folders(container_id, "memory", root):
        try:
            if (folder / "memory.usage_in_bytes").exists():
                usage = int((folder / "memory.usage_in_bytes").read_text())
                stat = (folder / "memory.stat").read_text()
                return max(0, usage - _stat_value(stat, ("total_inactive_file",
                                                         "inactive_file")))
            if (folder / "memory.current").exists():
                usage = int((folder / "memory.current").read_text())
                stat = (folder / "memory.stat").read_text()
                return max(0, usage - _stat_value(stat, ("inactive_file",)))
        except (OSError, ValueError):
            continue
    return None


def stats_memory_bytes(stats: dict[str, Any]) -> int | None:
    """The memory in use from a Docker stats answer, or None when it has none."""
    memory = stats.get("memory_stats") or {}
    usage = memory.get("usage")
    if not isinstance(usage, int):
        return None
    stat = memory.get("stats") or {}
    inactive = stat.get("total_inactive_file", stat.get("inactive_file", 0))
    return max(0, usage - int(inactive or 0))


def container_memory_bytes(container_id: str, client: Any = None) -> int | None:
    """The container's memory in use: from its cgroup, else Docker's one-shot stats (None when
    neither tells)."""
    return container_figure(container_id, client, cgroup_memory_bytes, stats_memory_bytes)
