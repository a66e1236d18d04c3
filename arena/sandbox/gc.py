"""The janitor: remove sandbox containers an arena left behind, and their socket folders.

Every container the sandbox creates is labelled with this host's name, the arena's pid and
start time, and its socket folder. A container whose arena process on this host is gone (its
pid free, or taken by a process started at another time) is a leftover (the arena was killed
before its ``finally`` ran, and its reaper with it); ``everything`` removes them all, running
matches included. Containers labelled by another host, or without an arena pid (image builds),
are kept unless ``everything`` is asked for. ``Janitor`` (``arena.sandbox.janitor``) runs a
collection when a worker or the service starts, and then periodically.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.sandbox import labels
from arena.sandbox.engine import docker_client
from arena.sandbox.socketdir import INNER, SOCKET_PREFIX, remove_tree

CONFLICT = 409
"""Docker's status for a request that conflicts with the container's state."""


@dataclass
class GcReport:
    """What a collection did: containers removed and kept, socket folders removed, errors."""

    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    socket_dirs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, list[str]]:
        """A JSON-ready form."""
        return {"removed": list(self.removed), "kept": list(self.kept),
                "socket_dirs": list(self.socket_dirs), "errors": list(self.errors)}


def arena_alive(pid: int, started: str = "") -> bool:
    """True when the arena process of this pid (and, when given, this start time) still runs
    on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if not started:
        return True
    now = labels.process_started(pid)
    return now is None or now == started


def is_leftover(container_labels: Mapping[str, str], host: str,
                alive: Callable[[int, str], bool] = arena_alive,
                everything: bool = False) -> bool:
    """True for a sandbox container to remove: all with ``everything``, else those whose
    arena on this host has exited (its pid is gone or is another process's now)."""
    if container_labels.get(labels.SANDBOX) != "1":
        return False
    if everything:
        return True
    pid_text = container_labels.get(labels.ARENA_PID, "")
    if container_labels.get(labels.ARENA_HOST) != host or not pid_text.isdigit():
        return False
    return not alive(int(pid_text), container_labels.get(labels.ARENA_STARTED, ""))


def socket_dir_of(container_labels: Mapping[str, str]) -> Path | None:
    """The container's socket folder when it looks like one the sandbox made, else None."""
    text = container_labels.get(labels.SOCKET_DIR, "")
    if not text:
        return None
    path = Path(text)
    if not path.is_absolute() or not path.name.startswith(SOCKET_PREFIX) or ".." in path.parts:
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):
        return None
    if any(entry.name != INNER for entry in path.iterdir()):
        return None
    return path


def removal_in_progress(error: Exception) -> bool:
    """True for Docker's refusal to remove a container that another caller is removing (a
    worker's janitor, the container's own arena, a second collection): it goes all the same."""
    status = getattr(error, "status_code", None)
    return status == CONFLICT and "already in progress" in str(error)


def collect(everything: bool = False, match: Mapping[str, str] | None = None) -> GcReport:
    """Remove leftover sandbox containers (all of them with ``everything``) and their socket
    folders; ``match`` narrows the search to containers with these labels too."""
    client = docker_client()
    from docker.errors import DockerException, NotFound
    filters = [f"{labels.SANDBOX}=1", *(f"{key}={value}" for key, value in
                                        (match or {}).items())]
    host = socket.gethostname()
    report = GcReport()
    for container in client.containers.list(all=True, ignore_removed=True,
                                            filters={"label": filters}):
        container_labels: dict[str, Any] = dict(container.labels or {})
        if not is_leftover(container_labels, host, everything=everything):
            report.kept.append(container.name)
            continue
        try:
            container.remove(force=True)
        except NotFound:
            pass
        except DockerException as error:
            if not removal_in_progress(error):
                report.errors.append(f"{container.name}: {' '.join(str(error).split())}")
                continue
        report.removed.append(container.name)
        folder = socket_dir_of(container_labels)
        if folder is not None:
            remove_tree(folder)
            report.socket_dirs.append(str(folder))
    return report
