"""When a bot's answer could first have been read: the event loop's own lag taken out.

Under load the arena's event loop is busy with other matches, and an answer waits in the
transport until the loop gets round to it. gRPC's completion thread takes the answer off the
socket at once and wakes the loop through a file descriptor; the loop's selector notices the
wake-up at the start of its next iteration (iteration n-1 below), where gRPC completes the
read; the stream's reader runs one iteration later (iteration n), the runner one more after
that. Timing a decision from the runner charges the bot for every one of those waits.

``LoopClock`` wraps the loop's selector and keeps, for the last iterations, when each
``select`` returned and whether it blocked: the loop had nothing to do and found no event
ready when it looked without waiting, so it waited for one. When the
reader gets an answer in iteration n, the answer came after iteration n-2's select returned
(that iteration would have completed the read otherwise) and by the time iteration n-1's
select returned. It is taken to have come:

- when iteration n-1's select returned, if that select blocked: the loop was idle and woke
  for the answer, so that is when it came;
- when iteration n-2's select returned, otherwise: the loop was busy, the answer came at
  some moment of the busy stretch that cannot be known, and the doubt goes to the bot (it
  is charged at most the time it really took, and at most one loop iteration less).

A write's completion is read the other way round: the request was on the socket by the time
iteration n-1's select returned, and that is when it counts as written. Both doubts go to the
bot.

On a loop without a selector of its own (not asyncio's selector loop) the reader's own
moment is used, which still leaves out the runner's wait.
"""

from __future__ import annotations

import asyncio
import selectors
import time
import weakref
from typing import Any


class _TimedSelector:
    """A selector that notes when each ``select`` returned and whether it waited."""

    __slots__ = ("_inner", "before", "before_blocked", "earlier", "last", "last_blocked")

    def __init__(self, inner: selectors.BaseSelector) -> None:
        """Wrap ``inner``; nothing noted yet."""
        self._inner = inner
        now = time.perf_counter_ns()
        self.last = self.before = self.earlier = now
        """Returns of the current iteration's select, the one before, and the one before it."""
        self.last_blocked = self.before_blocked = False

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        """The inner selector's events, noting the moment and whether the loop waited for
        them: a loop that may wait first looks without waiting, and waits only when nothing
        was there yet (so a wake-up found at once is never taken for one waited for)."""
        inner = self._inner
        events = inner.select(0)
        blocked = False
        if not events and (timeout is None or timeout > 0):
            events = inner.select(timeout)
            blocked = True
        self.earlier = self.before
        self.before, self.before_blocked = self.last, self.last_blocked
        self.last, self.last_blocked = time.perf_counter_ns(), blocked
        return events

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        """As the inner selector."""
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        """As the inner selector."""
        return self._inner.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        """As the inner selector."""
        return self._inner.modify(fileobj, events, data)

    def get_key(self, fileobj: Any) -> selectors.SelectorKey:
        """As the inner selector."""
        return self._inner.get_key(fileobj)

    def get_map(self) -> Any:
        """As the inner selector."""
        return self._inner.get_map()

    def close(self) -> None:
        """As the inner selector."""
        self._inner.close()

    def __getattr__(self, name: str) -> Any:
        """Anything else, as the inner selector."""
        return getattr(self._inner, name)


class LoopClock:
    """The moment an answer read now could first have been read, on one event loop."""

    __slots__ = ("_selector",)

    def __init__(self, selector: _TimedSelector | None) -> None:
        """Read the marks of ``selector`` (None: no marks, the reader's moment is used)."""
        self._selector = selector

    @property
    def measured(self) -> bool:
        """True when the loop's lag is taken out (its selector is watched)."""
        return self._selector is not None

    def arrival_ns(self) -> int:
        """For an answer the stream's reader has just been handed: when it came
        (``time.perf_counter_ns``)."""
        selector = self._selector
        if selector is None:
            return time.perf_counter_ns()
        return selector.before if selector.before_blocked else selector.earlier

    def completed_ns(self) -> int:
        """For a gRPC operation whose awaiting task has just resumed: the latest moment it can
        have completed (when the loop's previous ``select`` returned), so that a request counts
        as written no earlier than it was."""
        selector = self._selector
        if selector is None:
            return time.perf_counter_ns()
        return selector.before


_CLOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopClock] = (
    weakref.WeakKeyDictionary())


def loop_clock(loop: asyncio.AbstractEventLoop | None = None) -> LoopClock:
    """The clock of ``loop`` (the running one by default), its selector watched from the first
    call on (call it from the loop's own thread)."""
    loop = loop or asyncio.get_running_loop()
    clock = _CLOCKS.get(loop)
    if clock is None:
        inner = getattr(loop, "_selector", None)
        selector: _TimedSelector | None = None
        if isinstance(inner, _TimedSelector):
            selector = inner
        elif isinstance(inner, selectors.BaseSelector):
            selector = _TimedSelector(inner)
            loop._selector = selector  # type: ignore[attr-defined]
        clock = _CLOCKS[loop] = LoopClock(selector)
    return clock
