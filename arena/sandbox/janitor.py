"""The janitor of a long-running arena: leftovers of dead arenas removed at start and then
periodically.

Each arena process has a reaper that removes its containers and socket folders when it dies
(``arena.sandbox.lifeline``), but a reaper can die too (killed with its arena's whole session,
or by the out-of-memory killer). League workers and ``arena serve`` therefore start a
``Janitor``: a daemon thread that runs ``arena.sandbox.gc.collect`` (the collection of
``arena sandbox gc``: containers whose arena on this host is gone, with their socket folders)
once at start and every ``interval_s`` after. ``CARDARENA_JANITOR_S`` sets the period: 300 s by
default, 0 to collect at start only, ``off`` for no janitor. A machine without Docker has
nothing to collect: the janitor says so once and stops. Each collection that removed
something, or failed, is one line in the log.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

from arena.sandbox.errors import DockerUnavailable
from arena.sandbox.gc import GcReport, collect

log = logging.getLogger(__name__)

INTERVAL_ENV = "CARDARENA_JANITOR_S"
DEFAULT_INTERVAL_S = 300.0


class JanitorSettingError(ValueError):
    """``CARDARENA_JANITOR_S`` is not a number of seconds."""


def interval_from_env() -> float | None:
    """The janitor's period from ``CARDARENA_JANITOR_S`` (0: at start only; None for
    ``off``: no janitor), checked."""
    text = os.environ.get(INTERVAL_ENV, "").strip()
    if not text:
        return DEFAULT_INTERVAL_S
    if text.lower() == "off":
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise JanitorSettingError(f"{INTERVAL_ENV}={text!r} is not a number of seconds (0 or "
                                  "more; 0 collects at start only) or off")
    return value


def start_janitor(name: str) -> Janitor | None:
    """Start the janitor of the process ``name`` as ``CARDARENA_JANITOR_S`` says (None for
    ``off``); ``JanitorSettingError`` for a bad setting."""
    interval = interval_from_env()
    if interval is None:
        return None
    return Janitor(interval, name=name).start()


class Janitor:
    """A daemon thread collecting leftovers at start and every ``interval_s``."""

    def __init__(self, interval_s: float, collector: Callable[[], GcReport] = collect,
                 name: str = "arena") -> None:
        """A janitor for the process ``name`` (in its log lines); not started yet."""
        self.interval_s = interval_s
        self.collector = collector
        self.name = name
        self.collections = 0
        """How many collections have run."""
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Janitor:
        """Start the thread; the first collection runs at once."""
        self._thread = threading.Thread(target=self._run, name="janitor", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop after the collection in hand, if any."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def collect_once(self) -> bool:
        """One collection, logged; False when there is no Docker engine to collect from."""
        try:
            report = self.collector()
        except DockerUnavailable as error:
            log.info("janitor of %s: nothing to collect without Docker (%s)", self.name,
                     " ".join(str(error).split())[:300])
            return False
        except Exception as error:  # the janitor must never end its process
            log.warning("janitor of %s: the collection failed: %s", self.name,
                        " ".join(str(error).split())[:300])
            return True
        self.collections += 1
        if report.removed or report.errors:
            log.warning("janitor of %s: removed %d leftover container(s) of dead arenas (%s) and "
                        "%d socket folder(s)%s", self.name, len(report.removed),
                        ", ".join(report.removed) or "none", len(report.socket_dirs),
                        f"; errors: {'; '.join(report.errors)}" if report.errors else "")
        return True

    def _run(self) -> None:
        """Collect now, then every ``interval_s`` until stopped."""
        if not self.collect_once() or self.interval_s <= 0:
            return
        while not self._stopping.wait(self.interval_s):
            self.collect_once()
