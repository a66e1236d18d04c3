"""Builds shown while a command waits for them, on stderr.

On a terminal a spinner names the build and its last line of output, and a line says when it
ended and how long it took; written to a pipe or a file (tests, CI logs) the same shows as plain
lines: ``building bot NAME``, each line of its output indented, then ``built bot NAME in 52.1 s``
(or ``build of bot NAME failed after ...``). Every command that may build (``bot check``,
``bot build``, ``play``, ``compare``, ``league run``, ``images build-base`` and the benches,
which show builds in their own status line) runs inside ``show_builds``; what a build prints
is escaped (a bot's build output never drives the terminal).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console, RenderableType
from rich.status import Status
from rich.text import Text

from arena.cli.console import safe_console
from arena.match.safetext import safe_text
from arena.sandbox.buildwatch import watching

SPINNER = "dots"


class BuildDisplay:
    """A build watcher that shows builds on a console (stderr by default)."""

    def __init__(self, console: Console | None = None, shared: Status | None = None) -> None:
        """Show builds on ``console``; on a terminal in ``shared``, a status line the caller
        already shows (a console shows one at a time), else in a spinner of their own."""
        self.console = console or safe_console(stderr=True, soft_wrap=True)
        self.shared = shared
        self.before: RenderableType = ""
        """What the shared status line said before the builds."""
        self.running: list[str] = []
        """The builds running, the innermost last."""
        self.last = ""
        self.status: Status | None = None
        self.lock = threading.Lock()

    def started(self, what: str) -> None:
        """Start the spinner (or print the build's first line)."""
        with self.lock:
            self.running.append(what)
            self.last = ""
            if not self.console.is_terminal:
                self.console.print(Text(f"building {safe_text(what)}"))
            elif self.status is None and self.shared is not None:
                self.status, self.before = self.shared, self.shared.status
                self.status.update(self._text())
            elif self.status is None:
                self.status = Status(self._text(), console=self.console, spinner=SPINNER)
                self.status.start()
            else:
                self.status.update(self._text())

    def output(self, line: str) -> None:
        """Show a line of the build running (a message outside any build as a line)."""
        text = safe_text(line.rstrip())
        if not text.strip():
            return
        with self.lock:
            if self.status is not None:
                self.last = text.strip()
                self.status.update(self._text())
            else:
                self.console.print(Text(f"  {text}" if self.running else text, style="dim"))

    def ended(self, what: str, seconds: float, failed: bool) -> None:
        """Stop the spinner when no build is left, and say how the build ended."""
        with self.lock:
            if what in self.running:
                del self.running[len(self.running) - 1 - self.running[::-1].index(what)]
            self.last = ""
            if self.status is not None and not self.running:
                if self.status is self.shared:
                    self.status.update(self.before)
                else:
                    self.status.stop()
                self.status = None
            elif self.status is not None:
                self.status.update(self._text())
            name = safe_text(what)
            if failed:
                self.console.print(Text(f"build of {name} failed after {seconds:.1f} s",
                                        style="red"))
            else:
                self.console.print(Text(f"built {name} in {seconds:.1f} s", style="green"))

    def _text(self) -> Text:
        """The spinner's text: the innermost build and its last line, cut to one row."""
        line = f"building {safe_text(self.running[-1])}" if self.running else "building"
        if self.last:
            line += f" · {self.last}"
        width = max(self.console.width - 4, 20)
        if len(line) > width:
            line = line[:width - 1] + "…"
        return Text(line, no_wrap=True, overflow="ellipsis")


@contextmanager
def show_builds(console: Console | None = None,
                shared: Status | None = None) -> Iterator[BuildDisplay]:
    """Show every build of this process while the block runs (on a terminal in ``shared``,
    the caller's status line, when given)."""
    display = BuildDisplay(console, shared)
    try:
        with watching(display):
            yield display
    finally:
        if display.status is not None and display.status is not shared:
            display.status.stop()
