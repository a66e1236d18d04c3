"""What the audit measures: this process's peak memory, and a file system's least free space."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 * 1024
STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")
SAMPLE_S = 0.001
"""How often free space is sampled."""


def status_kib(field: str) -> int:
    """A ``kB`` field of ``/proc/self/status`` (``VmRSS``, ``VmHWM``), in KiB."""
    for line in STATUS.read_text(encoding="ascii").splitlines():
        name, _, value = line.partition(":")
        if name == field:
            return int(value.split()[0])
    raise KeyError(field)


@dataclass
class Peak:
    """The resident memory before a block and its peak during it (bytes)."""

    baseline: int = 0
    peak: int = 0

    @property
    def growth(self) -> int:
        """How far the peak rose above the baseline."""
        return max(0, self.peak - self.baseline)


@contextmanager
def peak_rss() -> Iterator[Peak]:
    """Measure this process's peak resident memory during the block: the kernel's high-water
    mark (``VmHWM``), reset first through ``/proc/self/clear_refs``."""
    CLEAR_REFS.write_text("5", encoding="ascii")
    peak = Peak(baseline=status_kib("VmRSS") * 1024)
    yield peak
    peak.peak = status_kib("VmHWM") * 1024


class FreeSpace:
    """The least free space of a file system, sampled every millisecond in a thread."""

    def __init__(self, path: Path) -> None:
        """Start sampling the file system of ``path``."""
        self.path = path
        self.before = self.free()
        self.least = self.before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def free(self) -> int:
        """Bytes free now (to unprivileged users)."""
        info = os.statvfs(self.path)
        return info.f_bavail * info.f_frsize

    def _sample(self) -> None:
        """Keep the least free space until stopped."""
        while not self._stop.wait(SAMPLE_S):
            self.least = min(self.least, self.free())

    def stop(self) -> int:
        """Stop sampling; the largest drop seen (bytes)."""
        self._stop.set()
        self._thread.join()
        self.least = min(self.least, self.free())
        return max(0, self.before - self.least)
