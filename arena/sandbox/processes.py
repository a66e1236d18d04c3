"""A running container's process count against its limit (``--pids-limit``), read from its
cgroup's files (v1 or v2) where this host shows them, else from Docker's one-shot stats.

A bot at its process limit is a fork bomb, or as good as one: its own runtime can no longer
start a thread, so whether it then hangs or aborts is chance. The container agent asks this
when a bot misses a deadline, and ends a bot found at its limit with one verdict (a crash)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.sandbox.cgroups import CGROUP_ROOT, cgroup_folders, container_figure


@dataclass(frozen=True)
class ProcessCount:
    """Processes (and threads) in a container, and its limit (None when unlimited)."""

    current: int
    limit: int | None

    @property
    def at_limit(self) -> bool:
        """True when no process or thread can start in the container."""
        return self.limit is not None and self.current >= self.limit


def _limit(text: str) -> int | None:
    """A ``pids.max`` value: a number, or None for ``max``."""
    text = text.strip()
    return None if text == "max" else int(text)


def cgroup_process_count(container_id: str, root: Path = CGROUP_ROOT) -> ProcessCount | None:
    """The container's process count from its cgroup's files, or None when they are not here."""
    for folder in cgroup_folders(container_id, "pids", root):
        try:
            current = int((folder / "pids.current").read_text())
            return ProcessCount(current, _limit((folder / "pids.max").read_text()))
        except (OSError, ValueError):
            continue
    return None


def stats_process_count(stats: dict[str, Any]) -> ProcessCount | None:
    """The process count from a Docker stats answer, or None when it has none."""
    pids = stats.get("pids_stats") or {}
    current = pids.get("current")
    if not isinstance(current, int):
        return None
    limit = pids.get("limit")
    return ProcessCount(current, limit if isinstance(limit, int) and limit > 0 else None)


def container_process_count(container_id: str, client: Any = None) -> ProcessCount | None:
    """The container's processes against its limit: from its cgroup, else Docker's one-shot
    stats (None when neither tells)."""
    return container_figure(container_id, client, cgroup_process_count, stats_process_count)
