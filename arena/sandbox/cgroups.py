"""A running container's figures from its cgroup's files (v1 or v2) where this host shows them,
else from Docker's one-shot stats: where to look, and the fallback between the two."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

CGROUP_ROOT = Path("/sys/fs/cgroup")

Figure = TypeVar("Figure")


def cgroup_folders(container_id: str, controller: str,
                   root: Path = CGROUP_ROOT) -> Iterator[Path]:
    """Where the container's cgroup of ``controller`` (``memory``, ``pids``) may be: cgroup v1
    and v2, cgroupfs and systemd."""
    yield root / controller / "docker" / container_id
    yield root / controller / "system.slice" / f"docker-{container_id}.scope"
    yield root / "docker" / container_id
    yield root / "system.slice" / f"docker-{container_id}.scope"


def container_figure(container_id: str, client: Any,
                     from_cgroup: Callable[[str], Figure | None],
                     from_stats: Callable[[dict[str, Any]], Figure | None]) -> Figure | None:
    """A figure from the container's cgroup, else from Docker's one-shot stats (None when
    neither tells, or without a client)."""
    found = from_cgroup(container_id)
    if found is not None or client is None:
        return found
    from docker.errors import DockerException
    from requests.exceptions import RequestException
    try:
        stats = client.api.stats(container_id, stream=False, one_shot=True)
    except (DockerException, RequestException, TypeError):
        return None
    return from_stats(stats)
