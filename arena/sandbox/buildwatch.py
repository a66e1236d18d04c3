"""Builds as they run, told to whoever watches: the command line shows them (a spinner with the
build's last line of output) while the code that builds knows nothing of terminals.

A build (a compiled bot's host build, a Docker image) runs inside ``building(what)``: every
watcher installed with ``watching`` is told when it starts, each line of its output, and when
it ends, with its duration, whether it failed and whether it had nothing to do (the build code
says so when it can tell: a host build that left the bot's program as it was, an image build
whose every step was found in Docker's cache). A build that can tell when it starts real work
(``building(what, tells_work=True)``: an image build, at its first step not found in the
cache) says so (``working``), so a watcher may hold its lines back until then. With no watcher
installed, nobody is told. Watchers are per process and may be told from any thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class BuildWatcher(Protocol):
    """What a watcher of builds is told."""

    def started(self, what: str, tells_work: bool) -> None:
        """A build of ``what`` (``bot NAME``, ``the base image``) starts; ``tells_work``: it
        will say when it starts real work (``working``), and has done none until then."""

    def working(self) -> None:
        """The build running (one that ``tells_work``) has started real work."""

    def output(self, line: str) -> None:
        """The build running wrote this line."""

    def ended(self, what: str, seconds: float, failed: bool, up_to_date: bool) -> None:
        """The build of ``what`` ended after ``seconds``, or failed; ``up_to_date``: it had
        nothing to do."""


_watchers: list[BuildWatcher] = []
_lock = threading.Lock()


@contextmanager
def watching(watcher: BuildWatcher) -> Iterator[BuildWatcher]:
    """Tell ``watcher`` about every build of this process while the block runs."""
    with _lock:
        _watchers.append(watcher)
    try:
        yield watcher
    finally:
        with _lock:
            _watchers.remove(watcher)


class BuildOutput:
    """The callback a build passes its output lines to; the build sets ``up_to_date`` when it
    finds it had nothing to do, and calls ``working`` when it starts real work."""

    def __init__(self, watchers: list[BuildWatcher]) -> None:
        """Lines go to ``watchers``."""
        self.watchers = watchers
        self.up_to_date = False
        self.worked = False
        """True once the build said it started real work."""

    def working(self) -> None:
        """Tell the watchers, once, that the build started real work."""
        if not self.worked:
            self.worked = True
            for watcher in self.watchers:
                watcher.working()

    def __call__(self, line: str) -> None:
        """Pass a line of the build's output on."""
        for watcher in self.watchers:
            watcher.output(line)


@contextmanager
def building(what: str, tells_work: bool = False) -> Iterator[BuildOutput]:
    """Run a build of ``what`` in the block, which gets the callback for its output lines; the
    watchers hear of its start, its lines and its end (failed when the block raises);
    ``tells_work``: the block calls ``working`` when it starts real work."""
    with _lock:
        watchers = list(_watchers)
    for watcher in watchers:
        watcher.started(what, tells_work)
    start = time.monotonic()
    failed = True
    output = BuildOutput(watchers)
    try:
        yield output
        failed = False
    finally:
        for watcher in watchers:
            watcher.ended(what, time.monotonic() - start, failed,
                          up_to_date=output.up_to_date and not failed)
