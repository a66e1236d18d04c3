"""Snoops once its match starts: looks for sockets other than its own, processes other than
its own, the environment it was given and the Docker socket; reports each, then plays."""

from __future__ import annotations

import os
import socket
import stat
import sys
from pathlib import Path

from cardarena_sdk import Bot, MatchInfo, Request, serve

OWN_SOCKET = "/run/cardarena/agent.sock"
SKIPPED = {"/proc", "/sys", "/dev"}
ENGINE_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
                  "/var/run/containerd/containerd.sock")


def report(probe: str, outcome: str, detail: str) -> None:
    """One line on stderr: the probe, its outcome and what happened."""
    print(f"probe {probe}: {outcome} ({detail})", file=sys.stderr, flush=True)


def sockets() -> list[str]:
    """Every Unix socket in the file system (``find / -type s``, without /proc, /sys, /dev)."""
    found = []
    for root, folders, files in os.walk("/"):
        folders[:] = [name for name in folders if os.path.join(root, name) not in SKIPPED]
        for name in files:
            path = os.path.join(root, name)
            try:
                if stat.S_ISSOCK(os.lstat(path).st_mode):
                    found.append(path)
            except OSError:
                continue
    return sorted(found)


def other_sockets() -> None:
    """Only its own socket may be there."""
    found = sockets()
    outcome = "contained" if found == [OWN_SOCKET] else "ESCAPED"
    report("other-socket", outcome, f"sockets: {','.join(found) or 'none'}")
    folder = sorted(os.listdir(os.path.dirname(OWN_SOCKET)))
    outcome = "contained" if folder == [os.path.basename(OWN_SOCKET)] else "ESCAPED"
    report("socket-folder", outcome, f"entries: {','.join(folder)}")


def processes() -> None:
    """Only its own process and its init may be seen."""
    pids = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    others = [pid for pid in pids if pid not in (1, os.getpid())]
    outcome = "ESCAPED" if others else "contained"
    commands = []
    for pid in pids:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").strip()
        except OSError:
            command = b"?"
        commands.append(f"{pid}={command.decode(errors='replace')}")
    report("processes", outcome, "; ".join(commands))


def environment() -> None:
    """The names of the variables it was given (the test judges them)."""
    report("environment", "contained", f"names: {','.join(sorted(os.environ))}")


def engine_socket() -> None:
    """The Docker and containerd sockets must be absent and unreachable."""
    for path in ENGINE_SOCKETS:
        if not os.path.lexists(path):
            report(f"engine-socket {path}", "blocked", "absent")
            continue
        with socket.socket(socket.AF_UNIX) as client:
            try:
                client.connect(path)
            except OSError as error:
                report(f"engine-socket {path}", "blocked", f"present, {error}")
            else:
                report(f"engine-socket {path}", "ESCAPED", "connected")


class Snooper(Bot):
    """Snoops at match start; then the first legal action."""

    name = "snooper"

    def on_match_start(self, match: MatchInfo) -> None:
        """Look around."""
        other_sockets()
        processes()
        environment()
        engine_socket()

    def act(self, request: Request) -> int:
        """The first legal action."""
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(Snooper)
