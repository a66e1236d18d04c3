"""Programs that the tests interrupt with Ctrl-C (SIGINT)."""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """Run in the child before it starts: SIGINT back to its default action. A shell makes the
    commands it starts in the background ignore SIGINT, and children inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
