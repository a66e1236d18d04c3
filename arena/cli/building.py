"""Builds shown while a command waits for them, on stderr.

On a terminal a spinner names the build and its last line of output, and a line says when it
ended and how long it took; written to a pipe or a file (tests, CI logs) the same shows as plain
lines: ``building bot NAME``, each line of its output indented, then ``built bot NAME in 52.1 s``
(or ``build of bot NAME failed after ...``). Every command that may build (``bot check``,
``bot build``, ``play``, ``compare``, ``league run``, ``images build-base`` and the benches,
which show builds in their own status line) runs inside ``show_builds``; ``remote submit``
shows the service's build, which it waits for without its lines, with a display of its own;
what a build prints is escaped (a bot's build output never drives the terminal). A build that
had nothing to do leaves no line: off a terminal its lines are held back for ``HOLD_S``, so that
one ending sooner shows nothing at all, and an image build's are held until a step not found
in Docker's cache runs, so that one whose every step is cached shows nothing however long
Docker takes to say so.
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

HOLD_S = 1.0
"""Off a terminal, how long a build's lines are held back: one that ends sooner with nothing
to do (its program unchanged) shows nothing at all."""


class BuildDisplay:
    """A build watcher that shows builds on a console (stderr by default)."""

    def __init__(self, console: Console | None = None, shared: Status | None = None,
                 hold_s: float = HOLD_S) -> None:
        """Show builds on ``console``; on a terminal in ``shared``, a status line the caller
        already shows (a console shows one at a time), else in a spinner of their own; off a
        terminal, the lines of a build are held for up to ``hold_s`` seconds."""
        self.console = console or safe_console(stderr=True, soft_wrap=True)
        self.shared = shared
        self.hold_s = hold_s
        self.held: list[Text] | None = None
        """The lines held back (off a terminal) while a build may yet turn out up to date."""
        self.until_work = False
        """The lines are held until the build says it works (``working``), not for a time."""
        self.due = False
        """The hold time is over: lines held until work are printed as soon as it starts."""
        self.timer: threading.Timer | None = None
        self.before: RenderableType = ""
        """What the shared status line said before the builds."""
        self.running: list[str] = []
        """The builds running, the innermost last."""
        self.last = ""
        self.status: Status | None = None
        self.lock = threading.Lock()

    def started(self, what: str, tells_work: bool = False) -> None:
        """Start the spinner (or print the build's first line); off a terminal, the lines of
        a first build are held back for ``hold_s``, and past it until the build works when it
        ``tells_work``."""
        with self.lock:
            self.running.append(what)
            self.last = ""
            if not self.console.is_terminal:
                if len(self.running) == 1 and self.held is None:
                    self.held = []
                    self.until_work, self.due = tells_work, False
                    self.timer = threading.Timer(self.hold_s, self.release)
                    self.timer.daemon = True
                    self.timer.start()
                self._print(Text(f"building {safe_text(what)}"))
            elif self.status is None and self.shared is not None:
                self.status, self.before = self.shared, self.shared.status
                self.status.update(self._text())
            elif self.status is None:
                self.status = Status(self._text(), console=self.console, spinner=SPINNER)
                self.status.start()
            else:
                self.status.update(self._text())

    def working(self) -> None:
        """The build started real work: lines held until then are printed once the hold time
        is over (at once when it is)."""
        with self.lock:
            self.until_work = False
            if self.due:
                self._release()

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
                self._print(Text(f"  {text}" if self.running else text, style="dim"))

    def ended(self, what: str, seconds: float, failed: bool, up_to_date: bool = False) -> None:
        """Stop the spinner when no build is left, and say how the build ended (nothing when
        it had nothing to do and nothing of it was shown yet)."""
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
            if up_to_date and (self.console.is_terminal or self.held is not None):
                if not self.running and self.held is not None:
                    self.held = []
                    self._release()
                return
            self._release()
            name = safe_text(what)
            if failed:
                self.console.print(Text(f"build of {name} failed after {seconds:.1f} s",
                                        style="red"))
            else:
                self.console.print(Text(f"built {name} in {seconds:.1f} s", style="green"))

    def release(self) -> None:
        """Print the lines held back: the build has run for ``hold_s`` (those of a build that
        has not started real work wait for it)."""
        with self.lock:
            self.due = True
            if not self.until_work:
                self._release()

    def flush(self) -> None:
        """Print whatever is held back, the watching over."""
        with self.lock:
            self._release()

    def _release(self) -> None:
        """Print the lines held back, if any, and hold no more (the lock held)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        held, self.held = self.held, None
        self.until_work = False
        for text in held or []:
            self.console.print(text)

    def _print(self, text: Text) -> None:
        """Print ``text``, or hold it back while lines are held (the lock held)."""
        if self.held is not None:
            self.held.append(text)
        else:
            self.console.print(text)

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
        display.flush()
        if display.status is not None and display.status is not shared:
            display.status.stop()
