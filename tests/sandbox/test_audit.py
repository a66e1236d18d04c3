"""``arena sandbox audit``: run for real, every promise passes; a failed promise exits 1; no
Docker engine is one clear error and exit 2. And the janitor unmounts a capped socket folder
that a killed arena left behind."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import arena.audit
from arena.audit import Promise
from arena.cli import app
from arena.sandbox import capfs, labels
from arena.sandbox.gc import collect
from arena.sandbox.socketdir import SocketDir

from .capping import require_capping

ARENA = Path(sys.executable).with_name("arena")
LIMITS = ("network", "read_only", "tmpfs_noexec", "user", "capabilities", "no_new_privileges",
          "seccomp", "pids", "memory", "memory_swap", "cpu", "nofile", "init", "log_cap",
          "socket", "socket_folder")
PROMISES = [*(f"limit {name}" for name in LIMITS), "socket folder holds nothing of the bot's",
            "flood unsolicited", "flood metadata", "flood trailers", "flood details",
            "flood compressed", "flood output"]


def audit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``arena sandbox audit ARGS`` in a process of its own."""
    return subprocess.run([str(ARENA), "sandbox", "audit", *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ, **(env or {})},
                          check=False)


@pytest.mark.alone
@pytest.mark.docker
def test_the_audit_passes_every_promise_on_this_machine(base_image: str) -> None:
    done = audit()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == [f"PASS {name}" for name in PROMISES]
    flood = next(line for line in lines if line.startswith("PASS flood unsolicited"))
    assert "INVALID" in flood and "peak memory rose" in flood
    disk = next(line for line in lines if line.startswith("PASS socket folder"))
    assert "attempts to store data blocked" in disk and "escaped" not in disk


def test_without_docker_the_audit_is_one_clear_error() -> None:
    done = audit(env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: Docker is not available on this machine: ")


def test_a_failed_promise_is_a_fail_line_and_exit_1(monkeypatch: pytest.MonkeyPatch,
                                                    docker_required: Any) -> None:
    promises = [Promise("limit memory", True, "memory limit 536870912"),
                Promise("flood unsolicited", False, "the bot wrote \x1b]0;owned\x07")]

    def fake_audit(report: Any = None, **_: Any) -> list[Promise]:
        """Report the fixed promises."""
        for promise in promises:
            if report is not None:
                report(promise)
        return promises

    monkeypatch.setattr(arena.audit, "run_audit", fake_audit)
    shown = CliRunner().invoke(app, ["sandbox", "audit"])
    assert shown.exit_code == 1
    assert shown.stdout.splitlines() == [
        "PASS limit memory: memory limit 536870912",
        "FAIL flood unsolicited: the bot wrote \\x1b]0;owned\\x07"]
    as_json = CliRunner().invoke(app, ["sandbox", "audit", "--json"])
    assert as_json.exit_code == 1 and "\x1b" not in as_json.stdout
    assert json.loads(as_json.stdout) == {"passed": False,
                                          "promises": [p.to_dict() for p in promises]}


@pytest.mark.docker
def test_the_janitor_unmounts_a_capped_socket_folder_left_behind(
        docker_required: Any, base_image: str, short_root: Path) -> None:
    require_capping()
    folder = SocketDir.create(10001, 10001, short_root, capped=True)
    child = subprocess.Popen(["true"])
    child.wait()
    container = docker_required.containers.create(
        base_image, command=["true"], name=f"cardarena-audit-test-{uuid.uuid4().hex[:8]}",
        labels={labels.SANDBOX: "1", labels.ARENA_HOST: socket.gethostname(),
                labels.ARENA_PID: str(child.pid), labels.SOCKET_DIR: str(folder.outer)})
    assert capfs.is_capped(folder.path)
    report = collect(match={labels.SOCKET_DIR: str(folder.outer)})
    assert container.name in report.removed and str(folder.outer) in report.socket_dirs
    assert not capfs.is_capped(folder.path) and not folder.outer.exists()
