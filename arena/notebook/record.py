"""The record ``arena.play`` returns: a match record that shows itself as the replay viewer.

In Jupyter (and anything else that calls ``_repr_html_``) the record is drawn as the
self-contained replay page (``arena.server.web.standalone``) inside an ``iframe`` whose
``srcdoc`` holds the page, so the page's style and script stay out of the notebook's own.
"""

from __future__ import annotations

import html
import webbrowser
from collections.abc import Collection
from dataclasses import dataclass, fields
from pathlib import Path

from arena.match.record import MatchRecord

FRAME_HEIGHT_PX = 720
"""The height of the replay's frame in a notebook."""


@dataclass(frozen=True, repr=False)
class PlayedRecord(MatchRecord):
    """A ``MatchRecord`` with the replay viewer: ``html()``, ``save_html()``, ``open()``."""

    def __repr__(self) -> str:
        """The game, seats, seed, players and returns, on one line."""
        returns = ", ".join(f"{value:g}" for value in self.returns)
        return (f"<PlayedRecord {self.game}, {self.players} seats, seed {self.seed}, "
                f"{len(self.actions)} actions, players {list(self.policies)}, "
                f"returns [{returns}]>")

    @classmethod
    def of(cls, record: MatchRecord) -> PlayedRecord:
        """The same record, with the replay viewer."""
        return cls(**{item.name: getattr(record, item.name) for item in fields(MatchRecord)})

    def html(self, notes_of: Collection[int] = ()) -> str:
        """The self-contained replay page; ``notes_of``: seats whose logs it shows."""
        from arena.server.web.standalone import replay_page

        return replay_page(self, notes_of)

    def save_html(self, path: str | Path, notes_of: Collection[int] = ()) -> Path:
        """Write the replay page to a file; its path."""
        from arena.server.web.standalone import write_replay_page

        return write_replay_page(self, Path(path), notes_of)

    def open(self, path: str | Path | None = None) -> Path:
        """Write the replay page (to ``path``, else beside the working folder's
        ``replay-<game>-<seed>.html``) and open it in the browser."""
        target = Path(path) if path is not None else Path(f"replay-{self.game}-{self.seed}.html")
        written = self.save_html(target)
        webbrowser.open(written.resolve().as_uri())
        return written

    def _repr_html_(self) -> str:
        """The replay page in a frame, for Jupyter."""
        page = html.escape(self.html(), quote=True)
        return (f'<iframe srcdoc="{page}" title="Replay of a {html.escape(self.game)} match" '
                f'style="width: 100%; height: {FRAME_HEIGHT_PX}px; border: 1px solid #ccc" '
                'sandbox="allow-scripts"></iframe>')
