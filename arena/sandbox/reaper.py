"""The reaper: ``python -m arena.sandbox.reaper TOKEN``, one per arena process, removes what the
arena left running when it ended, however it ended.

It reads ``+KIND VALUE`` and ``-KIND VALUE`` lines on its standard input, a pipe from the arena
(``arena.sandbox.lifeline``): a bot's process group, a folder, a container's name, a socket
folder, made or removed. When the pipe closes (the arena exited or was killed) it kills the
groups still listed and every process whose environment carries ``CARDARENA_LIFELINE=TOKEN``
(a bot's descendants, even in sessions of their own), removes the containers still listed
(waiting a moment for one whose create call was still in the daemon), then the folders and
the socket folders, and exits. Until then it imports only the standard library.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

LIFELINE_ENV = "CARDARENA_LIFELINE"

KILL_FOR_S = 10.0
"""How long marked processes are looked for and killed (a bot forking as it dies)."""

CREATE_SETTLE_S = 3.0
"""How long a listed container that does not exist yet is waited for: its create call may
still be in the daemon when the arena died."""

POLL_S = 0.1

KINDS = ("group", "folder", "container", "socketdir")
"""What the arena tells of (``arena.sandbox.lifeline``)."""


def read_registry(lines: Iterable[str]) -> dict[str, dict[str, None]]:
    """What is still live at the end of the lines: kind -> values (in the order told)."""
    live: dict[str, dict[str, None]] = {kind: {} for kind in KINDS}
    for line in lines:
        sign, kind_value = line[:1], line[1:].rstrip("\n")
        kind, _, value = kind_value.partition(" ")
        if kind not in live or not value:
            continue
        if sign == "+":
            live[kind][value] = None
        elif sign == "-":
            live[kind].pop(value, None)
    return live


def marked(token: str) -> Iterator[int]:
    """The processes (other than this one) whose environment carries the arena's marker."""
    needle = f"{LIFELINE_ENV}={token}".encode()
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as environ:
                if needle in environ.read().split(b"\0"):
                    yield int(entry.name)
        except OSError:
            continue


def kill_processes(token: str, groups: Iterable[str]) -> None:
    """SIGKILL the listed process groups, then every marked process until none is found."""
    for group in groups:
        with contextlib.suppress(OSError, ValueError):
            os.killpg(int(group), signal.SIGKILL)
    deadline = time.monotonic() + KILL_FOR_S
    while time.monotonic() < deadline:
        found = list(marked(token))
        if not found:
            return
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(POLL_S / 10)


def remove_containers(names: Iterable[str]) -> None:
    """Remove the containers (forced), waiting a moment for those not created yet."""
    waiting = list(names)
    if not waiting:
        return
    try:
        import docker
        from docker.errors import DockerException, NotFound
        client: Any = docker.from_env(timeout=30)
    except Exception:
        return
    deadline = time.monotonic() + CREATE_SETTLE_S
    while waiting:
        missing = []
        for name in waiting:
            try:
                client.api.remove_container(name, force=True)
            except NotFound:
                missing.append(name)
            except DockerException:
                continue
        if not missing or time.monotonic() >= deadline:
            return
        waiting = missing
        time.sleep(POLL_S)


def reap(token: str, lines: Iterable[str]) -> None:
    """Read the registry to its end, then remove everything still live."""
    live = read_registry(lines)
    kill_processes(token, live["group"])
    remove_containers(live["container"])
    for folder in live["folder"]:
        shutil.rmtree(folder, ignore_errors=True)
    if live["socketdir"]:
        from arena.sandbox.socketdir import remove_tree
        for folder in live["socketdir"]:
            remove_tree(Path(folder))


def main(argv: list[str]) -> int:
    """Reap for the arena whose token is ``argv[0]``."""
    if len(argv) != 1 or not argv[0]:
        print("usage: python -m arena.sandbox.reaper TOKEN", file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    reap(argv[0], sys.stdin)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
