"""Host builds of compiled bots: the ``build`` command of ``bot.toml``, run once per process.

A Rust, C++ or Go bot compiles on the host (where its toolchain and package registry are) and
puts what it runs into its folder (``bin/``); the arena runs that command before the bot plays
as a process and before its image is built, so a bot folder is always played as its sources
say. Builds of one folder are serialized across processes with a lock file, since league
workers may start the same bot at once; toolchains make a build with nothing to do quick. A
build runs in a session of its own and dies with the arena (``arena.sandbox.lifeline``); what
is left of its process group when it ends is killed.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from arena.bots.errors import BotConfigError
from arena.bots.manifest import BotManifest
from arena.sandbox.buildwatch import building
from arena.sandbox.lifeline import GROUP, lifeline, pdeathsig_preexec

log = logging.getLogger(__name__)

BUILD_TIMEOUT_S = 1800.0
"""A cold build fetches and compiles every dependency (a Rust gRPC stack takes minutes)."""

LOG_TAIL_LINES = 25
"""Lines of the build's output quoted when it fails."""

TOOLCHAIN_HINTS: dict[str, str] = {
    "cargo": "install Rust with rustup (https://rustup.rs), see docs/bots/rust.md",
    "protoc": "apt-get install protobuf-compiler",
    "cmake": "apt-get install cmake",
    "make": "apt-get install make",
    "g++": "apt-get install g++",
    "c++": "apt-get install g++",
    "go": "apt-get install golang-go, see docs/bots/go.md",
    "sh": "a POSIX shell is needed",
}
"""How to get a program a build command needs, by program name."""

_built: set[Path] = set()
_built_lock = threading.Lock()

Progress = Callable[[str], None]


def ensure_built(manifest: BotManifest, *, timeout_s: float = BUILD_TIMEOUT_S,
                 progress: Progress | None = None) -> None:
    """Run the bot's ``build`` command unless this process already has; raise
    ``BotConfigError`` naming the bot, the command and the end of its output on failure."""
    if not manifest.build:
        return
    folder = manifest.folder
    with _built_lock:
        if folder in _built:
            return
        with _folder_lock(folder):
            _run_build(manifest, timeout_s, progress or log.info)
        _built.add(folder)


def forget_builds() -> None:
    """Build every folder again on its next use (for tests and long-lived services)."""
    with _built_lock:
        _built.clear()


def _run_build(manifest: BotManifest, timeout_s: float, say: Progress) -> None:
    """Run the command in the bot's folder, its output captured."""
    argv = list(manifest.build)
    shown = " ".join(argv)
    program = argv[0]
    if shutil.which(program) is None and not (manifest.folder / program).exists():
        hint = TOOLCHAIN_HINTS.get(Path(program).name, "install it or fix bot.toml's build")
        raise BotConfigError(f"bot {manifest.name}: its build command needs {program!r}, "
                             f"which is not installed: {hint}")
    say(f"building bot {manifest.name}: {shown} (in {manifest.folder})")
    runs = program_files(manifest)
    before = snapshot(runs)
    with building(f"bot {manifest.name}") as show:
        _build_and_check(manifest, argv, timeout_s, show)
        show.up_to_date = bool(before) and snapshot(runs) == before


def program_files(manifest: BotManifest) -> Path:
    """Where the files the bot runs are: the folder of its program when the command runs one
    of the bot folder (``./bin/heuristic``: ``bin/``), else the whole bot folder."""
    folder = manifest.folder.resolve()
    program = (folder / manifest.command[0]).resolve()
    if program.parent != folder and program.parent.is_relative_to(folder):
        return program.parent
    return folder


def snapshot(where: Path) -> dict[str, tuple[int, int]]:
    """The size and modification time of every file under ``where``, by path: a build that
    leaves it unchanged had nothing to do (toolchains and the sample bots' build scripts touch
    no output that is up to date)."""
    found: dict[str, tuple[int, int]] = {}
    for root, _dirs, files in os.walk(where):
        for name in files:
            path = os.path.join(root, name)
            with contextlib.suppress(OSError):
                status = os.stat(path)
                found[path] = (status.st_size, status.st_mtime_ns)
    return found


def _build_and_check(manifest: BotManifest, argv: list[str], timeout_s: float,
                     show: Progress) -> None:
    """Run the build, each line of its output shown as it comes; raise ``BotConfigError``
    when it fails."""
    shown = " ".join(argv)
    try:
        status, output = _build_group(argv, manifest.folder, timeout_s, show)
    except subprocess.TimeoutExpired:
        raise BotConfigError(f"bot {manifest.name}: build command `{shown}` ran past "
                             f"{timeout_s:g} s and was stopped") from None
    except OSError as error:
        raise BotConfigError(f"bot {manifest.name}: cannot run build command `{shown}`: "
                             f"{error.strerror or error}") from None
    if status != 0:
        tail = "\n".join(output[-LOG_TAIL_LINES:])
        missing = _missing_tool(tail)
        hint = f" ({missing})" if missing else ""
        raise BotConfigError(f"bot {manifest.name}: build command `{shown}` failed with exit "
                             f"status {status}{hint}; end of its output:\n{tail}")


def _build_group(argv: list[str], folder: Path, timeout_s: float,
                 show: Progress) -> tuple[int, list[str]]:
    """Run a build in a session of its own, told to this process's reaper (it dies with the
    arena); whatever is left of its group when it ends or runs out of time is killed. Each
    line of its output goes to ``show`` as it comes; its exit status and its last lines."""
    guard = lifeline()
    env = {**os.environ, **guard.environment()}
    kept: deque[str] = deque(maxlen=LOG_TAIL_LINES)
    with subprocess.Popen(argv, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          start_new_session=True, preexec_fn=pdeathsig_preexec()) as build:
        guard.track(GROUP, build.pid)
        assert build.stdout is not None
        reader = threading.Thread(target=_read_lines, args=(build.stdout, kept, show),
                                  name="build-output", daemon=True)
        reader.start()
        try:
            build.wait(timeout=timeout_s)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(build.pid, signal.SIGKILL)
            build.wait()
            guard.forget(GROUP, build.pid)
            reader.join(READER_GRACE_S)
    return build.returncode, list(kept)


LINE_CAP = 4096
"""Bytes of a build's output read as one line at most: a longer line comes in pieces, so no
line of a build's output is held whole however long it is."""

READER_GRACE_S = 5.0
"""How long the end of a build's output may take to be read once its group is killed (a
process that left the group may still hold the pipe)."""


def _read_lines(stream: IO[bytes], kept: deque[str], show: Progress) -> None:
    """Read a build's output to its end: keep its last lines, and show each (a line a tool
    redraws with carriage returns shows as it last reads)."""
    with contextlib.suppress(OSError, ValueError):
        for raw in iter(lambda: stream.readline(LINE_CAP), b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n").rsplit("\r", 1)[-1].rstrip()
            if not line:
                continue
            kept.append(line)
            with contextlib.suppress(Exception):
                show(line)


def _missing_tool(output: str) -> str:
    """A hint when the output says a known program was not found."""
    for program, hint in TOOLCHAIN_HINTS.items():
        for pattern in (f"{program}: not found", f"{program}: command not found",
                        f"Could not find `{program}`", f"'{program}' not found"):
            if pattern in output:
                return f"{program} is missing: {hint}"
    return ""


@contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock per bot folder, shared by every process on the machine."""
    digest = hashlib.sha256(str(folder).encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"cardarena-build-{digest}.lock"
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)
