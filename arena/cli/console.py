"""A rich console for text that bots and uploaders wrote: no markup, every character escaped
that ``safe_text`` escapes.

Callers still escape what they print (``safe_text``) and build ``Text`` objects, so that
tables lay out the escaped form; this console is the net under them: whatever it prints passes
through a render hook that escapes the text of every segment (rich's own styles and cursor
controls are not text, and stay), and strings are never read as markup (``[red]``,
``[link=...]``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderHook, RichCast
from rich.segment import Segment

from arena.match.safetext import safe_text

PIPE_WIDTH = 120
"""The width of tables written to a pipe or file rather than a terminal."""


class Escaped:
    """A renderable whose text is shown with control and format characters escaped."""

    def __init__(self, renderable: ConsoleRenderable | RichCast | str) -> None:
        """Wrap ``renderable``."""
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        """The wrapped renderable's segments, their text escaped."""
        for segment in console.render(self.renderable, options):
            if segment.control or (segment.text.isascii() and segment.text.isprintable()):
                yield segment
            else:
                yield Segment(safe_text(segment.text, multiline=True), segment.style)


class EscapeHook(RenderHook):
    """Wraps everything a console prints in ``Escaped``."""

    def process_renderables(self, renderables: list[ConsoleRenderable]
                            ) -> list[ConsoleRenderable]:
        """Every renderable, escaped."""
        return [Escaped(renderable) for renderable in renderables]


def safe_console(**options: Any) -> Console:
    """A console (``rich.console.Console`` options) that reads no markup and escapes what it
    prints."""
    options.setdefault("highlight", False)
    console = Console(markup=False, **options)
    console.push_render_hook(EscapeHook())
    return console

