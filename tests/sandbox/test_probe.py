"""The probe: this engine enforces every limit, and the probe has teeth (a container made
without some limits is reported for exactly those)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import probe
from arena.sandbox.errors import LimitsNotEnforced, SandboxError
from arena.sandbox.images import BASE_IMAGE
from arena.sandbox.limits import SandboxLimits, container_options
from arena.sandbox.probe import (
    LIMIT_NAMES,
    ProbeResult,
    analyse,
    missing_limits,
    parse_output,
    require_enforced,
    run_probe,
)
from arena.sandbox.shared_layers import shared_mounts

LIMITS = SandboxLimits()

ENFORCED_V1 = """\
Uid=10001
CapEff=0000000000000000
NoNewPrivs=1
Seccomp=2
memory.limit_in_bytes=536870912
memory.memsw.limit_in_bytes=536870912
pids.max=64
cpu.cfs_quota_us=100000
cpu.cfs_period_us=100000
nofile=256
root_mount=ro,noatime
tmp_mount=rw,nosuid,nodev,noexec,relatime,size=65536k
net=lo
init=docker-init
"""

ENFORCED_V2 = """\
Uid=10001
CapEff=0000000000000000
NoNewPrivs=1
Seccomp=2
memory.max=536870912
memory.swap.max=0
pids.max=64
cpu.max=100000 100000
nofile=256
root_mount=ro,relatime
tmp_mount=rw,noexec
net=lo
init=tini
"""

LOGGED = {"LogConfig": {"Type": "json-file", "Config": {"max-size": "1048576"}}}


def result(text: str, host_config: dict[str, Any] | None = None) -> ProbeResult:
    """A probe result from the script's output."""
    return ProbeResult(parse_output(text), LOGGED if host_config is None else host_config)


def changed(text: str, key: str, value: str | None) -> str:
    """``text`` with ``key``'s line replaced (or dropped when ``value`` is None)."""
    lines = [line for line in text.splitlines() if not line.startswith(f"{key}=")]
    if value is not None:
        lines.extend(f"{key}={item}" for item in value.split("|"))
    return "\n".join(lines)


@pytest.mark.parametrize("text", [ENFORCED_V1, ENFORCED_V2])
def test_everything_enforced_reports_nothing(text: str) -> None:
    assert analyse(result(text), LIMITS) == {}


@pytest.mark.parametrize(("key", "value", "limit"), [
    ("net", "eth0|lo", "network"),
    ("root_mount", "rw,noatime", "read_only"),
    ("tmp_mount", "rw,nosuid", "tmpfs_noexec"),
    ("tmp_mount", None, "tmpfs_noexec"),
    ("Uid", "0", "user"),
    ("CapEff", "00000000a80425fb", "capabilities"),
    ("NoNewPrivs", "0", "no_new_privileges"),
    ("Seccomp", "0", "seccomp"),
    ("pids.max", "max", "pids"),
    ("memory.limit_in_bytes", "9223372036854771712", "memory"),
    ("memory.memsw.limit_in_bytes", "1073741824", "memory_swap"),
    ("memory.memsw.limit_in_bytes", None, "memory_swap"),
    ("cpu.cfs_quota_us", "-1", "cpu"),
    ("nofile", "1048576", "nofile"),
    ("init", "python", "init"),
])
def test_each_missing_limit_is_named_with_what_was_seen(key: str, value: str | None,
                                                        limit: str) -> None:
    missing = analyse(result(changed(ENFORCED_V1, key, value)), LIMITS)
    assert list(missing) == [limit]
    assert missing[limit]


def test_a_writable_folder_served_from_the_host_fails_the_read_only_limit() -> None:
    served = ENFORCED_V1 + "image_mount=/usr/lib ro,relatime\nimage_mount=/opt/venv ro,relatime\n"
    assert analyse(result(served), LIMITS) == {}
    writable = served.replace("/opt/venv ro,relatime", "/opt/venv rw,relatime")
    assert analyse(result(writable), LIMITS) == {
        "read_only": "/ mounted ro,noatime; /opt/venv mounted rw,relatime"}


def test_a_socket_the_host_cannot_see_is_reported() -> None:
    """The probe made its socket, and the host found it or not (a runtime such as gVisor's
    keeps it inside its sandbox); a probe image without python3 makes none, and nothing is
    said of it."""
    shown = ProbeResult({**parse_output(ENFORCED_V1 + "socket_made=1\n"),
                         "socket_on_host": ("1",)}, LOGGED)
    assert analyse(shown, LIMITS) == {}
    assert probe.observe(shown, LIMITS)["socket"] == (
        True, "a socket made in the container shows on the host")
    hidden = ProbeResult({**parse_output(ENFORCED_V1 + "socket_made=1\n"),
                          "socket_on_host": ("0",)}, LOGGED)
    assert analyse(hidden, LIMITS) == {"socket": (
        "a socket made in the container at /run/cardarena/agent.sock is not on the host (the "
        "runtime does not share sockets through the mount)")}
    unmade = ProbeResult({**parse_output(ENFORCED_V1), "socket_on_host": ("0",)}, LOGGED)
    assert "socket" not in probe.observe(unmade, LIMITS)


def test_uncapped_logs_are_reported() -> None:
    missing = analyse(result(ENFORCED_V1, {"LogConfig": {"Type": "json-file", "Config": {}}}),
                      LIMITS)
    assert missing == {"log_cap": "log driver json-file max-size none"}


def test_the_limit_names_are_the_documented_ones() -> None:
    assert set(LIMIT_NAMES) == {"network", "read_only", "tmpfs_noexec", "user", "capabilities",
                                "no_new_privileges", "seccomp", "pids", "memory", "memory_swap",
                                "cpu", "nofile", "init", "log_cap", "socket_folder",
                                "socket"}


def test_require_enforced_names_missing_limits_unless_allowed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(probe, "missing_limits",
                        lambda image, limits=None: {"memory_swap": "no swap accounting"})
    with pytest.raises(LimitsNotEnforced, match=r"does not enforce: memory_swap \(no swap "
                                                r"accounting\).*--allow-unenforced memory_swap"):
        require_enforced(frozenset(), "some-image")
    require_enforced(frozenset({"memory_swap"}), "some-image")
    with pytest.raises(SandboxError, match="unknown limit names swap"):
        require_enforced(frozenset({"swap"}), "some-image")


@pytest.mark.docker
def test_this_engine_enforces_every_limit(base_image: str) -> None:
    """Every limit, and the bot's socket shown to the host, checked for real."""
    assert missing_limits(BASE_IMAGE, LIMITS) == {}
    require_enforced(frozenset(), BASE_IMAGE, LIMITS)
    ran = run_probe(BASE_IMAGE, limits=LIMITS)
    seen = probe.observe(ran, LIMITS)
    assert seen["socket"] == (True, "a socket made in the container shows on the host")
    served = {mount["Target"] for mount in shared_mounts(BASE_IMAGE)}
    mounted = dict(mount.split(" ", 1) for mount in ran.seen.get("image_mount", ()))
    assert served <= set(mounted), mounted
    assert all("ro" in options.split(",") for options in mounted.values()), mounted


@pytest.mark.docker
def test_a_served_folder_mounted_writable_fails_the_probe(base_image: str,
                                                          short_root: Path) -> None:
    mounts = shared_mounts(BASE_IMAGE)
    if not mounts:
        pytest.skip("this engine's storage driver serves no folder from the host")
    options = container_options(BASE_IMAGE, LIMITS, short_root, {}, mounts=mounts)
    options["mounts"] = [dict(mount, ReadOnly=False) for mount in options["mounts"]]
    missing = analyse(run_probe(BASE_IMAGE, options, LIMITS), LIMITS)
    assert list(missing) == ["read_only"]
    assert all(f"{mount['Target']} mounted rw" in missing["read_only"] for mount in mounts)


@pytest.mark.docker
def test_the_probe_reports_limits_a_container_lacks(base_image: str, short_root: Path) -> None:
    options = container_options(BASE_IMAGE, LIMITS, short_root, {})
    for key in ("mem_limit", "memswap_limit", "pids_limit"):
        del options[key]
    options.update(network_mode="bridge", init=False, read_only=False)
    missing = analyse(run_probe(BASE_IMAGE, options, LIMITS), LIMITS)
    assert set(missing) == {"memory", "memory_swap", "pids", "network", "init", "read_only"}
    assert "eth0" in missing["network"]
