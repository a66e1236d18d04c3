"""Ctrl-C as a request to stop: a SIGINT handler that sets an event the run checks where it is
safe to stop, instead of a KeyboardInterrupt raised wherever the main thread happens to be."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType


@contextmanager
def ctrl_c_noted(note: Callable[[], None] | None = None,
                 again_raises: bool = False) -> Iterator[threading.Event]:
    """An event set by Ctrl-C (SIGINT); the first one also calls ``note`` (skipped if the
    stream is mid-write in the interrupted code). With ``again_raises`` a second Ctrl-C raises
    KeyboardInterrupt as usual. Off the main thread, signals stay as they are."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def noted(_signum: int, _frame: FrameType | None) -> None:
        """Set the event (and note it) the first time; raise the next, if asked to."""
        if stop.is_set():
            if again_raises:
                raise KeyboardInterrupt
            return
        stop.set()
        if note is not None:
            with suppress(RuntimeError, OSError):
                note()

    previous = signal.signal(signal.SIGINT, noted)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)
