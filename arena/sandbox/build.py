"""One Docker build, watched: log streamed, stopped past a time or size limit, one-line errors.

The build runs without network (``network_mode="none"``) with the classic builder, whose layer
cache makes a second build of an unchanged folder give the same image id.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.sandbox.engine import docker_client
from arena.sandbox.errors import BuildError

log = logging.getLogger(__name__)

Progress = Callable[[str], None]

LOG_LINES = 20
"""How many of the build log's last lines a ``BuildError`` carries."""

INSTRUCTION_CHARS = 120
"""How much of a step's instruction an error message quotes."""

POLL_S = 0.5
SIZE_POLL_S = 2.0
"""The least time between two measurements of a build step's size."""
SIZE_SHARE = 0.2
"""Measuring a size makes the daemon walk the container's whole file system (seconds on
fuse-overlayfs): measurements run in the background, and take at most this share of the time."""
GRACE_S = 30.0
"""How long a stopped build may take to wind down before it is left to the daemon."""

STEP = re.compile(r"^Step (?P<number>\d+/\d+) : (?P<instruction>.*)$")
RUNNING = re.compile(r"^ ---> Running in (?P<container>[0-9a-f]{12,64})$")


def mebibytes(size: int) -> str:
    """A byte count for messages, in MiB."""
    return f"{size / 2**20:.1f} MiB"


@dataclass
class BuildLog:
    """What a build stream said so far: its last lines, current step and running container."""

    what: str
    progress: Progress
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=200))
    step: str = ""
    container: str = ""
    error: str = ""
    partial: str = ""

    def take(self, chunk: dict[str, Any]) -> None:
        """Record one decoded chunk of the build stream."""
        if "error" in chunk:
            self.error = str(chunk["error"]).strip()
            self._line(self.error)
            return
        text = chunk.get("stream")
        if not isinstance(text, str):
            status = chunk.get("status")
            if isinstance(status, str):
                self._line(status)
            return
        pieces = (self.partial + text).split("\n")
        self.partial = pieces.pop()
        for piece in pieces:
            self._line(piece.rstrip("\r"))

    def _line(self, line: str) -> None:
        """Keep one line, follow steps and containers, and report it."""
        if not line.strip():
            return
        self.lines.append(line)
        if step := STEP.match(line):
            instruction = step["instruction"].strip()
            if len(instruction) > INSTRUCTION_CHARS:
                instruction = instruction[:INSTRUCTION_CHARS - 3] + "..."
            self.step = f"step {step['number']} ({instruction})"
            self.container = ""
        elif running := RUNNING.match(line):
            self.container = running["container"]
        self.progress(line)

    def excerpt(self) -> str:
        """The last lines of the log, for ``BuildError.log``."""
        lines = [*self.lines, *([self.partial] if self.partial.strip() else [])]
        return "\n".join(lines[-LOG_LINES:])

    def where(self) -> str:
        """`` at step 3/5 (RUN ...)`` when a step has started, else nothing."""
        return f" at {self.step}" if self.step else ""


def run_build(context: Path, *, tag: str, what: str, timeout_s: float,
              max_bytes: int | None = None, buildargs: dict[str, str] | None = None,
              labels: dict[str, str] | None = None,
              progress: Progress | None = None) -> str:
    """Build ``context`` as ``tag`` within the limits; return the image id or raise BuildError."""
    client = docker_client()
    build_log = BuildLog(what, progress or log.debug)
    events: queue.Queue[tuple[str, Any]] = queue.Queue()
    options = dict(path=str(context), tag=tag, buildargs=buildargs or {}, labels=labels or {},
                   network_mode="none", rm=True, forcerm=True, decode=True,
                   timeout=int(timeout_s + GRACE_S + 60))
    previous = _image_id(client, tag)
    reader = threading.Thread(target=_read_stream, args=(client, options, events),
                              name=f"build {tag}", daemon=True)
    reader.start()
    stopped = _watch(client, build_log, events, timeout_s, max_bytes)
    if stopped:
        _remove_container(client, build_log.container)
        if _image_id(client, tag) not in ("", previous):
            _remove_image(client, tag)
        threading.Thread(target=_remove_late_image, args=(client, reader, tag, previous),
                         name=f"reap {tag}", daemon=True).start()
        raise BuildError(stopped, log=build_log.excerpt())
    if build_log.error:
        raise BuildError(f"{what}: the build failed{build_log.where()}: {build_log.error}",
                         log=build_log.excerpt())
    image = client.api.inspect_image(tag)
    size = int(image.get("Size") or 0)
    if max_bytes is not None and size > max_bytes:
        _remove_image(client, tag)
        raise BuildError(f"{what}: the image is {mebibytes(size)}, over the limit of "
                         f"{mebibytes(max_bytes)}; it was removed", log=build_log.excerpt())
    return str(image["Id"])


def _remove_late_image(client: Any, reader: threading.Thread, tag: str, previous: str) -> None:
    """Once a stopped build's stream ends, remove the image the daemon may still have tagged."""
    reader.join()
    if _image_id(client, tag) not in ("", previous):
        _remove_image(client, tag)


def _read_stream(client: Any, options: dict[str, Any],
                 events: queue.Queue[tuple[str, Any]]) -> None:
    """Run the build request and pass each decoded chunk, then the end, to ``events``."""
    try:
        for chunk in client.api.build(**options):
            events.put(("chunk", chunk))
    except Exception as error:
        events.put(("failed", error))
    else:
        events.put(("end", None))


def _watch(client: Any, build_log: BuildLog, events: queue.Queue[tuple[str, Any]],
           timeout_s: float, max_bytes: int | None) -> str:
    """Follow the build until it ends; return why it was stopped, or "" when it ran its course."""
    started = time.monotonic()
    deadline = started + timeout_s
    next_size_check = started + SIZE_POLL_S
    probe = SizeProbe(client)
    stopped = ""
    give_up = 0.0
    try:
        while True:
            try:
                kind, payload = events.get(timeout=POLL_S)
            except queue.Empty:
                kind, payload = "", None
            if kind == "chunk":
                before = build_log.container
                build_log.take(payload)
                if stopped and build_log.container and build_log.container != before:
                    _kill(client, build_log.container)
            elif kind == "failed":
                if not stopped and not build_log.error:
                    build_log.error = _first_line(payload)
                break
            elif kind == "end":
                break
            now = time.monotonic()
            if stopped:
                if now > give_up:
                    break
                continue
            if now >= deadline:
                stopped = (f"{build_log.what}: the build ran past its time limit of "
                           f"{timeout_s:g} s{build_log.where()}; it was stopped")
            elif max_bytes is not None and build_log.container:
                size = probe.size_of(build_log.container)
                if size > max_bytes:
                    stopped = (f"{build_log.what}: the image grew to {mebibytes(size)}"
                               f"{build_log.where()}, over the limit of {mebibytes(max_bytes)}; "
                               f"the build was stopped")
                elif now >= next_size_check and probe.start(build_log.container):
                    next_size_check = now + max(SIZE_POLL_S, probe.seconds / SIZE_SHARE)
            if stopped:
                give_up = now + GRACE_S
                _kill(client, build_log.container)
    except BaseException:
        _kill(client, build_log.container)
        raise
    return stopped


class SizeProbe:
    """Measures a build step's container in a background thread, one measurement at a time,
    so that the build's log and limits are followed while the daemon computes a size."""

    def __init__(self, client: Any) -> None:
        """No measurement yet."""
        self.client = client
        self.seconds = 0.0
        """How long the last measurement took."""
        self._sizes: dict[str, int] = {}
        self._running: threading.Thread | None = None

    def start(self, container: str) -> bool:
        """Start measuring ``container`` unless a measurement is running; whether it started."""
        if self._running is not None and self._running.is_alive():
            return False
        self._running = threading.Thread(target=self._measure, args=(container,),
                                         name=f"size {container[:12]}", daemon=True)
        self._running.start()
        return True

    def size_of(self, container: str) -> int:
        """The last size measured of ``container`` (0 before the first measurement ends)."""
        return self._sizes.get(container, 0)

    def _measure(self, container: str) -> None:
        """Measure once and keep the result and its duration."""
        started = time.monotonic()
        self._sizes[container] = _container_size(self.client, container)
        self.seconds = time.monotonic() - started


def _image_id(client: Any, tag: str) -> str:
    """The id of the image a tag names now, or "" when there is none."""
    try:
        return str(client.api.inspect_image(tag)["Id"])
    except Exception:
        return ""


def _container_size(client: Any, container: str) -> int:
    """The size of a build step's container (its image layers and what it wrote), or 0."""
    try:
        found = client.api.containers(all=True, filters={"id": container}, size=True)
    except Exception:
        return 0
    return int(found[0].get("SizeRootFs") or 0) if found else 0


def _kill(client: Any, container: str) -> None:
    """Kill a build step's container, if there is one and it still runs."""
    if not container:
        return
    try:
        client.api.kill(container)
    except Exception as error:
        log.debug("kill %s: %s", container, error)


def _remove_container(client: Any, container: str) -> None:
    """Remove a stopped build's step container if the daemon left it."""
    if not container:
        return
    try:
        client.api.remove_container(container, force=True)
    except Exception as error:
        log.debug("remove %s: %s", container, error)


def _remove_image(client: Any, tag: str) -> None:
    """Remove (or untag) an image a stopped or oversized build produced."""
    try:
        client.api.remove_image(tag)
    except Exception as error:
        log.debug("remove image %s: %s", tag, error)


def _first_line(error: BaseException) -> str:
    """The first line of an exception's message."""
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
