"""The limits of a bot's container and the hardened options that apply them."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

MIB = 1024 * 1024

SOCKET_MOUNT = "/run/cardarena"
"""Where the per-seat socket folder appears inside the container."""

SOCKET_NAME = "agent.sock"

CONTAINER_ADDRESS = f"unix:{SOCKET_MOUNT}/{SOCKET_NAME}"
"""The address a bot listens on inside its container (given in ``CARDARENA_ADDRESS``)."""

RUNTIME_ENV = "CARDARENA_DOCKER_RUNTIME"
"""The Docker runtime that runs bot containers on this host (``arena --runtime NAME``); unset,
the engine's default."""


def configured_runtime() -> str | None:
    """The runtime ``CARDARENA_DOCKER_RUNTIME`` names, None for the engine's default."""
    return os.environ.get(RUNTIME_ENV, "").strip() or None


@dataclass(frozen=True)
class SandboxLimits:
    """What a bot's container may use."""

    memory_bytes: int = 512 * MIB
    """Memory, and memory plus swap (no swap at all)."""
    pids: int = 64
    cpus: float = 1.0
    nofile: int = 256
    tmpfs_bytes: int = 64 * MIB
    """The size of the writable, ``noexec`` ``/tmp``."""
    log_max_bytes: int = 1 * MIB
    """The most of its output Docker keeps for a container."""
    user: str = "10001:10001"
    """The uid:gid the bot runs as (never root)."""
    runtime: str | None = field(default_factory=configured_runtime)
    """The Docker runtime (``runc``, ``runsc``...); None: the engine's default."""

    @property
    def uid(self) -> int:
        """The numeric uid of ``user``."""
        return int(self.user.split(":", 1)[0])

    @property
    def gid(self) -> int:
        """The numeric gid of ``user`` (the uid when no group is given)."""
        _, _, group = self.user.partition(":")
        return int(group) if group else self.uid

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (for match records; the runtime only when one is named)."""
        found = asdict(self)
        if self.runtime is None:
            del found["runtime"]
        return found


def container_options(image: str, limits: SandboxLimits, socket_dir: Path,
                      labels: dict[str, str], cpuset: str | None = None,
                      mounts: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Keyword arguments for ``client.containers.create``: every hardening option at once;
    ``mounts`` are read-only folders of the image served from the host
    (``arena.sandbox.shared_layers``)."""
    options: dict[str, Any] = {
        "image": image,
        "detach": True,
        "labels": dict(labels),
        "environment": {"CARDARENA_ADDRESS": CONTAINER_ADDRESS},
        "user": limits.user,
        "network_mode": "none",
        "read_only": True,
        "tmpfs": {"/tmp": f"rw,noexec,nosuid,nodev,size={limits.tmpfs_bytes}"},
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "pids_limit": limits.pids,
        "mem_limit": limits.memory_bytes,
        "memswap_limit": limits.memory_bytes,
        "nano_cpus": int(limits.cpus * 1e9),
        "ulimits": [{"Name": "nofile", "Soft": limits.nofile, "Hard": limits.nofile}],
        "init": True,
        "log_config": {"Type": "json-file",
                       # Two halves: after a rotation the last half is still there, so a
                       # bot that floods its output always leaves its last bytes to read.
                       "Config": {"max-size": str(max(1, limits.log_max_bytes // 2)),
                                  "max-file": "2"}},
        "volumes": {str(socket_dir): {"bind": SOCKET_MOUNT, "mode": "rw"}},
        "stdin_open": False,
        "tty": False,
    }
    if mounts:
        options["mounts"] = [dict(mount, ReadOnly=True) for mount in mounts]
    if cpuset is not None:
        options["cpuset_cpus"] = cpuset
    if limits.runtime is not None:
        options["runtime"] = limits.runtime
    return options
