"""Does the Docker engine enforce every limit? One short-lived probe container says.

The probe runs a shell script (builtins only) in a container made with the very options a
bot gets, reads back what the container sees (its uid, capabilities, ``no_new_privs``,
seccomp mode, cgroup limits, ``nofile``, mounts, network interfaces, PID 1) and what the
engine recorded (the log configuration), and names every limit that is not in force. The
answer is cached per process, keyed by the daemon's id and the limits. One limit is the
arena's own: ``socket_folder``, a size-capped file system for each seat's socket folder
(``arena.sandbox.capfs``), which only an arena that may mount can give.
"""

from __future__ import annotations

import functools
import os
import stat
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.sandbox import capfs, labels
from arena.sandbox.engine import docker_client
from arena.sandbox.errors import LimitsNotEnforced, SandboxError
from arena.sandbox.lifeline import CONTAINER, SOCKET_DIR, lifeline
from arena.sandbox.limits import SOCKET_MOUNT, SOCKET_NAME, SandboxLimits, container_options
from arena.sandbox.shared_layers import shared_mounts
from arena.sandbox.socketdir import SOCKET_PREFIX, SocketDir, default_root

LIMIT_NAMES = ("network", "read_only", "tmpfs_noexec", "user", "capabilities",
               "no_new_privileges", "seccomp", "pids", "memory", "memory_swap", "cpu", "nofile",
               "init", "log_cap", "socket_folder", "socket")
"""Every limit the probe checks; ``--allow-unenforced`` takes these names."""

PROBE_TIMEOUT_S = 60
"""Seconds the probe container may run."""

INIT_NAMES = ("docker-init", "tini")
"""PID 1 inside a container started with ``--init``."""

UNLIMITED = ("max", "-1", "9223372036854771712", "9223372036854775807")

PROBE_SCRIPT = r"""
show() { if [ -r "$2" ]; then read -r v < "$2"; echo "$1=$v"; fi; }
while read -r k v rest; do
  case "$k" in Uid:|CapEff:|NoNewPrivs:|Seccomp:) echo "${k%:}=$v";; esac
done < /proc/self/status
show memory.limit_in_bytes /sys/fs/cgroup/memory/memory.limit_in_bytes
show memory.memsw.limit_in_bytes /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes
show memory.max /sys/fs/cgroup/memory.max
show memory.swap.max /sys/fs/cgroup/memory.swap.max
show pids.max /sys/fs/cgroup/pids/pids.max
show pids.max /sys/fs/cgroup/pids.max
show cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_quota_us
show cpu.cfs_period_us /sys/fs/cgroup/cpu/cpu.cfs_period_us
show cpu.max /sys/fs/cgroup/cpu.max
echo "nofile=$(ulimit -n)"
while read -r dev mnt fs opts rest; do
  case "$mnt" in
    /) echo "root_mount=$opts";; /tmp) echo "tmp_mount=$opts";;
    /usr/*|/opt/*) echo "image_mount=$mnt $opts";;
  esac
done < /proc/self/mounts
for f in /sys/class/net/*; do echo "net=${f##*/}"; done
show init /proc/1/comm
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("@SOCKET@")' 2>/dev/null \
    && echo socket_made=1 || echo socket_made=0
fi
""".replace("@SOCKET@", f"{SOCKET_MOUNT}/{SOCKET_NAME}")


@dataclass(frozen=True)
class ProbeResult:
    """What a probe container saw (``key -> values``) and the engine's ``HostConfig``."""

    seen: dict[str, tuple[str, ...]]
    host_config: dict[str, Any]

    def first(self, key: str) -> str:
        """The first value seen for ``key``, or ``""``."""
        values = self.seen.get(key, ())
        return values[0] if values else ""


def parse_output(text: str) -> dict[str, tuple[str, ...]]:
    """``key=value`` lines into ``key -> values`` (in order)."""
    seen: dict[str, list[str]] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            seen.setdefault(key.strip(), []).append(value.strip())
    return {key: tuple(values) for key, values in seen.items()}


def _number(text: str) -> int | None:
    """An integer, or None for ``max`` / unlimited / missing."""
    if not text or text in UNLIMITED:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _options(text: str) -> set[str]:
    """A mount's comma-separated options."""
    return set(text.split(",")) if text else set()


def analyse(result: ProbeResult, limits: SandboxLimits) -> dict[str, str]:
    """The limits not in force, each with what was seen (empty when all are)."""
    return {name: seen for name, (ok, seen) in observe(result, limits).items() if not ok}


def observe(result: ProbeResult, limits: SandboxLimits) -> dict[str, tuple[bool, str]]:
    """Every limit the probe checks: whether it is in force, and what was seen."""
    observed: dict[str, tuple[bool, str]] = {}

    def need(name: str, ok: bool, seen: str) -> None:
        """Record whether ``name`` is in force, with what was seen."""
        observed[name] = (ok, seen or "nothing")

    nets = [net for net in result.seen.get("net", ()) if net != "*"]
    need("network", nets == ["lo"], "interfaces " + ",".join(nets) if nets else "")
    root = result.first("root_mount")
    writable = [mount for mount in result.seen.get("image_mount", ())
                if "ro" not in _options(mount.partition(" ")[2])]
    need("read_only", "ro" in _options(root) and not writable,
         "; ".join(([f"/ mounted {root}"] if root else [])
                   + [f"{mount.partition(' ')[0]} mounted {mount.partition(' ')[2]}"
                      for mount in writable]))
    tmp = result.first("tmp_mount")
    need("tmpfs_noexec", "noexec" in _options(tmp), f"/tmp mounted {tmp}" if tmp else "")
    uid = result.first("Uid")
    need("user", uid not in ("", "0") and uid == str(limits.uid), f"uid {uid}" if uid else "")
    cap = result.first("CapEff")
    need("capabilities", bool(cap) and int(cap, 16) == 0, f"CapEff {cap}" if cap else "")
    nnp = result.first("NoNewPrivs")
    need("no_new_privileges", nnp == "1", f"NoNewPrivs {nnp}" if nnp else "")
    seccomp = result.first("Seccomp")
    need("seccomp", seccomp == "2", f"Seccomp mode {seccomp}" if seccomp else "")
    pids = _number(result.first("pids.max"))
    need("pids", pids is not None and pids <= limits.pids, f"pids.max {pids or 'max'}")
    memory = _number(result.first("memory.limit_in_bytes") or result.first("memory.max"))
    need("memory", memory is not None and memory <= limits.memory_bytes,
         f"memory limit {memory or 'none'}")
    need("memory_swap", *_swap(result, limits))
    need("cpu", *_cpu(result, limits))
    nofile = _number(result.first("nofile"))
    need("nofile", nofile is not None and nofile <= limits.nofile,
         f"nofile {result.first('nofile') or 'unknown'}")
    init = result.first("init")
    need("init", init in INIT_NAMES, f"PID 1 is {init}" if init else "")
    log = result.host_config.get("LogConfig") or {}
    max_size = (log.get("Config") or {}).get("max-size", "")
    need("log_cap", log.get("Type") in ("json-file", "local") and bool(max_size),
         f"log driver {log.get('Type')} max-size {max_size or 'none'}")
    if "socket_on_host" in result.seen and result.first("socket_made") == "1":
        shown = result.first("socket_on_host") == "1"
        need("socket", shown, "a socket made in the container shows on the host" if shown else
             f"a socket made in the container at {SOCKET_MOUNT}/{SOCKET_NAME} is not on the "
             "host (the runtime does not share sockets through the mount)")
    return observed


def _swap(result: ProbeResult, limits: SandboxLimits) -> tuple[bool, str]:
    """No swap beyond the memory limit: memsw == memory (v1) or ``memory.swap.max`` 0 (v2)."""
    memsw = _number(result.first("memory.memsw.limit_in_bytes"))
    if memsw is not None:
        return memsw <= limits.memory_bytes, f"memory+swap limit {memsw}"
    swap_text = result.first("memory.swap.max")
    if swap_text:
        return swap_text == "0", f"memory.swap.max {swap_text}"
    return False, "no swap accounting (memory.memsw.limit_in_bytes missing)"


def _cpu(result: ProbeResult, limits: SandboxLimits) -> tuple[bool, str]:
    """A CFS quota of at most ``cpus`` cores (``cpu.cfs_quota_us`` or ``cpu.max``)."""
    quota = _number(result.first("cpu.cfs_quota_us"))
    period = _number(result.first("cpu.cfs_period_us"))
    cpu_max = result.first("cpu.max")
    if quota is None and cpu_max:
        quota_text, _, period_text = cpu_max.partition(" ")
        quota, period = _number(quota_text), _number(period_text)
    if quota is None or not period:
        return False, "no CPU quota"
    cores = quota / period
    return cores <= limits.cpus + 1e-6, f"CPU quota {cores:g} cores"


def run_probe(image: str, options: dict[str, Any] | None = None,
              limits: SandboxLimits | None = None) -> ProbeResult:
    """Run the probe script in one container from ``image`` (with ``options``, by default a
    bot's hardened options on a socket folder of its own, where it makes a socket the host
    then looks for) and return what it saw; the container is always removed (by this
    process's reaper if it dies meanwhile)."""
    client = docker_client()
    from docker.errors import DockerException
    from requests.exceptions import RequestException
    limits = limits or SandboxLimits()
    name = f"cardarena-probe-{uuid.uuid4().hex[:12]}"
    try:
        outer = lifeline().new_folder(SOCKET_DIR, SOCKET_PREFIX, default_root())
        socket_dir = SocketDir.create(limits.uid, limits.gid, capped=not capfs.unavailable(),
                                      outer=outer)
        lifeline().track(CONTAINER, name)
    except OSError as error:
        raise SandboxError(f"cannot probe the sandbox limits: {error}") from None
    seen_on_host: dict[str, tuple[str, ...]] = {}
    try:
        if options is None:
            options = container_options(image, limits, socket_dir.path, {labels.SANDBOX: "1"},
                                        mounts=shared_mounts(image))
            seen_on_host["socket_on_host"] = ()
        probe_labels = {**options.get("labels", {}), labels.SANDBOX: "1",
                        **labels.arena_labels()}
        options = {**options, "image": image, "entrypoint": ["sh", "-c", PROBE_SCRIPT],
                   "command": [], "labels": probe_labels, "name": name}
        container = None
        try:
            container = client.containers.create(**options)
            container.start()
            outcome = container.wait(timeout=PROBE_TIMEOUT_S)
            output = container.logs(stdout=True, stderr=True).decode("utf-8", "replace")
            container.reload()
            host_config = dict(container.attrs.get("HostConfig", {}))
        except (DockerException, RequestException) as error:
            raise SandboxError(f"cannot probe the sandbox limits with image {image}: "
                               f"{' '.join(str(error).split())}") from None
        finally:
            _remove_probe(client, name, created=container is not None)
        if "socket_on_host" in seen_on_host:
            seen_on_host["socket_on_host"] = ("1" if _is_socket(socket_dir.socket) else "0",)
    finally:
        socket_dir.remove()
        lifeline().forget(SOCKET_DIR, socket_dir.outer)
    if outcome.get("StatusCode") != 0:
        raise SandboxError(f"the sandbox probe failed in image {image} (status "
                           f"{outcome.get('StatusCode')}): {output.strip()[-500:]}")
    return ProbeResult({**parse_output(output), **seen_on_host}, host_config)


def _is_socket(path: Path) -> bool:
    """True when ``path`` is a Unix socket (links not followed)."""
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


def _remove_probe(client: Any, name: str, created: bool) -> None:
    """Remove the probe's container by name (forced), also when its create call failed: the
    daemon may have made it all the same. The reaper forgets it once it is known to be gone."""
    from docker.errors import DockerException, NotFound
    from requests.exceptions import RequestException
    try:
        client.api.remove_container(name, force=True)
    except NotFound:
        if not created:
            return  # its create may still be in the daemon: the reaper keeps it listed
    except (DockerException, RequestException):
        return
    lifeline().forget(CONTAINER, name)


@functools.cache
def daemon_id() -> str:
    """The Docker daemon's id (one per process, like the client)."""
    return str(docker_client().info().get("ID", ""))


_cache: dict[tuple[str, SandboxLimits], dict[str, str]] = {}
_cache_lock = threading.Lock()


def probe_image(fallback: str) -> str:
    """The image to probe with: the local base image (it has ``sh``), else ``fallback``."""
    from docker.errors import ImageNotFound

    from arena.sandbox.images import BASE_IMAGE
    try:
        docker_client().images.get(BASE_IMAGE)
    except ImageNotFound:
        return fallback
    return BASE_IMAGE


def missing_limits(image: str, limits: SandboxLimits | None = None) -> dict[str, str]:
    """The limits this engine does not enforce (probed once per daemon and limits, in the
    base image when there is one, else in ``image``), and the arena's own when it cannot cap
    socket folders."""
    limits = limits or SandboxLimits()
    key = (daemon_id(), limits)
    with _cache_lock:
        if key not in _cache:
            _cache[key] = analyse(run_probe(probe_image(image), limits=limits), limits)
        missing = dict(_cache[key])
    reason = capfs.unavailable()
    if reason:
        missing["socket_folder"] = reason
    return missing


def require_enforced(allow: frozenset[str], image: str,
                     limits: SandboxLimits | None = None) -> None:
    """Raise ``LimitsNotEnforced`` naming every limit not in force and not in ``allow``."""
    unknown = set(allow) - set(LIMIT_NAMES)
    if unknown:
        raise SandboxError(f"unknown limit names {', '.join(sorted(unknown))}; "
                           f"known: {', '.join(LIMIT_NAMES)}")
    missing = {name: seen for name, seen in missing_limits(image, limits).items()
               if name not in allow}
    if missing:
        raise LimitsNotEnforced(missing)
