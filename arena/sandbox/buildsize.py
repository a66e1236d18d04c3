"""How much disk an image build has taken: its committed layers and the running step's writes.

A running step's writes are measured in its container's upper directory on the host (fast: only
what the step wrote is walked), or through the Docker API's ``SizeRw`` when that folder cannot be
read (a remote engine, an arena without root). Files count at their apparent size, since a
sparse file is written out in full when the step's layer is committed, and every file or folder
counts at least ``ENTRY_BYTES``, so that a flood of empty files is bounded too.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

ENTRY_BYTES = 4096
"""The least a file or folder of a step counts (an inode, a block, a tar header)."""


def step_bytes(client: Any, container: str) -> int:
    """What a build step's container has written so far, in bytes (0 when unknown)."""
    upper = _upper_dir(client, container)
    if upper:
        try:
            return walk_bytes(upper)
        except OSError:
            pass
    try:
        found = client.api.containers(all=True, filters={"id": container}, size=True)
    except Exception:
        return 0
    return int(found[0].get("SizeRw") or 0) if found else 0


def walk_bytes(folder: str) -> int:
    """The apparent size of everything under ``folder``, each entry counting ENTRY_BYTES at
    least; raises OSError when ``folder`` cannot be read."""
    total = 0
    pending = [folder]
    os.stat(folder)
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except FileNotFoundError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            total += max(info.st_size, ENTRY_BYTES) if entry.is_file(follow_symlinks=False) \
                else ENTRY_BYTES
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
    return total


def _upper_dir(client: Any, container: str) -> str:
    """The host folder holding what the container wrote, when this process can read it."""
    try:
        data = client.api.inspect_container(container)["GraphDriver"]["Data"] or {}
    except Exception:
        return ""
    upper = str(data.get("UpperDir") or "")
    return upper if upper and os.access(upper, os.R_OK | os.X_OK) else ""


def image_bytes(client: Any, image: str) -> int:
    """An image's size as Docker counts it (all its layers), or 0 when it cannot be read."""
    try:
        return int(client.api.inspect_image(image).get("Size") or 0)
    except Exception:
        return 0


@dataclass
class DiskLedger:
    """The disk a build has committed: its first base image, and each stage's new layers."""

    base: int | None = None
    closed: int = 0
    """The new layers of the stages that have ended."""
    stage_from: int = 0
    stage_now: int = 0

    def new_stage(self) -> None:
        """A ``FROM`` starts a stage (``scratch`` stays at 0 until something is committed)."""
        self.closed += self.stage_now - self.stage_from
        self.stage_from = self.stage_now = 0

    def committed(self, size: int, *, starts_stage: bool) -> None:
        """An image the build reached: a stage's starting image, or a step's result."""
        if starts_stage:
            if self.base is None:
                self.base = size
            self.stage_from = self.stage_now = size
        else:
            self.stage_now = max(size, self.stage_from)

    @property
    def charged(self) -> int:
        """The bytes counted against the build's limit so far."""
        return (self.base or 0) + self.closed + self.stage_now - self.stage_from


class StepProbe:
    """Measures a running step in a background thread, one measurement at a time, so that the
    build's log and limits are followed while a large folder is walked."""

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
        self._sizes[container] = step_bytes(self.client, container)
        self.seconds = time.monotonic() - started
