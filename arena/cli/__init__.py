"""The ``arena`` command line: one module per command group, with the terminal output (tables,
the match display, live progress) beside them; typer and rich are imported only in this package,
the layers below return data and the commands render it.

``app`` (assembled in ``arena.cli.main``) and ``ArenaGroup`` load on first use, so that
``python -m arena.cli.worker`` and the worker processes it spawns start without importing every
command group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.cli.group import ArenaGroup
    from arena.cli.main import app

__all__ = ["ArenaGroup", "app"]


def __getattr__(name: str) -> Any:
    """``app`` and ``ArenaGroup``, imported when first asked for."""
    if name == "app":
        from arena.cli.main import app

        return app
    if name == "ArenaGroup":
        from arena.cli.group import ArenaGroup

        return ArenaGroup
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
