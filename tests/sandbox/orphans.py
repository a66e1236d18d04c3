"""What a killed arena may leave behind, found for real: processes (by a marker in their
environment, which every descendant inherits, and by the process tree recorded before the
kill), sandbox containers (by their labels) and bot and socket folders.

``escaper_bot`` writes a process bot that leaves a daemon behind (a grandchild in a session of
its own, re-parented to init: outside the bot's process group, out of reach of pdeathsig).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from arena.sandbox import labels
from arena.sandbox.socketdir import remove_tree

ARENA = str(Path(sys.executable).parent / "arena")
"""The ``arena`` program of this environment."""

MARKER = "CARDARENA_TEST_ORPHANS"
"""Set in the arena's environment by a test; every process it starts inherits it."""

DAEMONS = "CARDARENA_TEST_DAEMONS"
"""The folder where the escaper bot's daemons note their pids."""

RUNNING_WITHIN_S = 120.0
"""How long a program may take to have its matches running (never reached)."""

GONE_WITHIN_S = 30.0
"""How long after the kill everything must be gone (the reaper needs well under a second)."""

FOLDER_PREFIXES = ("cardarena-bot-", "cat-")
"""A process bot's folder, a seat's socket folder."""

T = TypeVar("T")

ESCAPER = '''
import os
import random
import time
from pathlib import Path

from cardarena_sdk import Bot, Request, serve


def leave_a_daemon() -> None:
    """Fork a grandchild in a session of its own, as a daemon does, noting its pid."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            Path(os.environ["{daemons}"], f"daemon-{{os.getpid()}}").touch()
            while True:
                time.sleep(60)
        os._exit(0)
    os.wait()


class Escaper(Bot):
    name = "escaper"
    version = "1.0.0"

    def act(self, request: Request) -> int:
        time.sleep({delay})
        return random.choice(request.legal_ids)


if __name__ == "__main__":
    leave_a_daemon()
    serve(Escaper)
'''


def escaper_bot(folder: Path, delay_s: float = 0.2) -> Path:
    """A process bot that leaves a daemon behind at start and waits ``delay_s`` per decision."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "escaper"\nversion = "1.0.0"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\ngames = ["*"]\n')
    (folder / "bot.py").write_text(ESCAPER.format(daemons=DAEMONS, delay=repr(delay_s)))
    return folder


def process_stats() -> Iterator[tuple[int, list[str]]]:
    """Every process's pid and the fields of its ``/proc/PID/stat`` after the command name
    (its state first, then its parent)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        yield int(entry.name), fields


def process_table() -> dict[int, int]:
    """Every live process (zombies left out) and its parent."""
    return {pid: int(fields[1]) for pid, fields in process_stats() if fields[0] not in ("Z", "X")}


def descendants(root: int) -> set[int]:
    """The live processes under ``root`` (not itself)."""
    children: dict[int, list[int]] = {}
    for pid, parent in process_table().items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    return pid in process_table()


def marked(value: str) -> list[int]:
    """Live processes whose environment has ``MARKER=value``."""
    needle = f"{MARKER}={value}".encode()
    live = process_table()
    found = []
    for pid in live:
        with contextlib.suppress(OSError):
            if needle in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                found.append(pid)
    return found


def command_line(pid: int) -> str:
    """A process's command line, spaces between the arguments."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace").strip()
    except OSError:
        return "(gone)"


def sandbox_containers(client: Any, pids: Iterable[int]) -> list[Any]:
    """Sandbox containers (running or not) started on this host by one of ``pids``."""
    wanted = {str(pid) for pid in pids}
    host = socket.gethostname()
    found = []
    for container in client.containers.list(all=True, ignore_removed=True,
                                            filters={"label": [f"{labels.SANDBOX}=1"]}):
        tags = container.labels or {}
        if tags.get(labels.ARENA_HOST) == host and tags.get(labels.ARENA_PID) in wanted:
            found.append(container)
    return found


def containers_under(client: Any, folder: Path) -> list[Any]:
    """Sandbox containers (running or not) whose socket folder is inside ``folder``: those of
    any arena given it as TMPDIR, a process the test did not record included (a Celery
    worker's child that took a match after the kill)."""
    found = []
    for container in client.containers.list(all=True, ignore_removed=True,
                                            filters={"label": [f"{labels.SANDBOX}=1"]}):
        socket_dir = (container.labels or {}).get(labels.SOCKET_DIR, "")
        if socket_dir and Path(socket_dir).is_relative_to(folder):
            found.append(container)
    return found


def daemons(folder: Path) -> list[int]:
    """The pids the escaper's daemons noted."""
    return [int(path.name.removeprefix("daemon-")) for path in folder.glob("daemon-*")]


def wait_for(probe: Callable[[], T | None], timeout_s: float, what: str,
             program: Any = None) -> T:
    """Poll ``probe`` until it gives a value; fail naming ``what`` after ``timeout_s`` (or
    when ``program``, a Popen, has exited)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value is not None:
            return value
        if program is not None and program.poll() is not None:
            raise AssertionError(f"the program exited ({program.returncode}) before {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@dataclass
class Arena:
    """A program under test and what it had started when it was killed."""

    marker: str
    temp: Path
    """Its TMPDIR, where bot folders and socket folders go."""
    daemon_folder: Path
    recorded: set[int] = field(default_factory=set)

    def environment(self) -> dict[str, str]:
        """The program's environment: ours, the marker, its TMPDIR and the daemons' folder."""
        return {**os.environ, MARKER: self.marker, "TMPDIR": str(self.temp),
                DAEMONS: str(self.daemon_folder)}

    def start(self, argv: list[str]) -> subprocess.Popen[bytes]:
        """Start the program in a session of its own, its output in ``out.log``."""
        with (self.temp.parent / "out.log").open("wb") as out:
            return subprocess.Popen(argv, env=self.environment(), stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def output(self) -> str:
        """What the program wrote."""
        return (self.temp.parent / "out.log").read_text(errors="replace")

    def matches_running(self, client: Any, program: subprocess.Popen[bytes]) -> set[int]:
        """Wait until a bot process, its daemon and a running container are up under the
        program; its process tree then (a failure carries the program's output)."""

        def probe() -> set[int] | None:
            """The tree once everything is up."""
            tree = descendants(program.pid)
            if not daemons(self.daemon_folder):
                return None
            if not any(command_line(pid).endswith("bot.py") for pid in tree):
                return None
            containers = sandbox_containers(client, tree | {program.pid})
            if not any(container.status == "running" for container in containers):
                return None
            return tree

        try:
            return wait_for(probe, RUNNING_WITHIN_S, "matches running", program)
        except AssertionError as error:
            raise AssertionError(f"{error}: {self.output()}") from None

    def kill(self, program: subprocess.Popen[bytes], tree: set[int]) -> None:
        """Record ``tree`` and the program, then SIGKILL only the program's own process."""
        self.recorded = tree | {program.pid}
        os.kill(program.pid, signal.SIGKILL)
        program.wait()

    def leftovers(self, client: Any) -> dict[str, list[str]]:
        """Everything still there that the program started."""
        processes = sorted(set(marked(self.marker)) | {pid for pid in self.recorded
                                                      if alive(pid)}
                           | {pid for pid in daemons(self.daemon_folder) if alive(pid)})
        return {
            "processes": [f"{pid} {command_line(pid)}" for pid in processes],
            "containers": [container.name for container in
                           sandbox_containers(client, self.recorded)],
            "folders": sorted(path.name for path in self.temp.iterdir()
                              if path.name.startswith(FOLDER_PREFIXES)),
        }

    def assert_nothing_left(self, client: Any) -> None:
        """Within ``GONE_WITHIN_S``, no process, container or folder it started remains."""
        deadline = time.monotonic() + GONE_WITHIN_S
        while True:
            left = self.leftovers(client)
            if not any(left.values()):
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"left behind {GONE_WITHIN_S:g} s after the kill: {left}")
            time.sleep(0.1)

    def clean_up(self, client: Any) -> None:
        """Kill and remove whatever is left (after a failed test)."""
        for pid in [*marked(self.marker), *daemons(self.daemon_folder), *self.recorded]:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for container in [*sandbox_containers(client, self.recorded),
                          *containers_under(client, self.temp)]:
            with contextlib.suppress(Exception):
                container.remove(force=True)
        for folder in self.temp.glob("*"):  # a socket folder's capped file system too
            remove_tree(folder)
