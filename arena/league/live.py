"""Deals in play, for watchers: the actions so far of each deal of a running match.

For leagues created with ``LeagueSettings(live=True)`` (the service's), the match runner tells
a ``LiveFeed`` of every action; a thread writes the deals that changed to ``live_deals`` at most
every ``FLUSH_S`` seconds, so the match's clock never waits on the database. The rows go once
the match is played (its records then say everything).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from arena.games import State
from arena.match.runner import ActionHook
from arena.store.live import remove_live_deals, write_live_deals

FLUSH_S = 0.2
"""How often the actions of the deals in play are written at most."""


class LiveFeed:
    """Collects the actions of a match's deals and writes them from a thread."""

    def __init__(self, bind: Engine | Connection, match_id: str,
                 flush_s: float = FLUSH_S) -> None:
        """Start the writer thread for ``match_id``."""
        self.bind = bind
        self.match_id = match_id
        self.flush_s = flush_s
        self._latest: dict[int, list[int]] = {}
        self._written: dict[int, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"live {match_id}", daemon=True)
        self._thread.start()

    def __call__(self, rotation: int, state: State) -> None:
        """Note the actions of a deal so far (called after every action)."""
        with self._lock:
            self._latest[rotation] = state.history()

    def _run(self) -> None:
        """Write what changed every ``flush_s`` until stopped (failures retried next tick)."""
        while not self._stop.wait(self.flush_s):
            with contextlib.suppress(Exception):
                self.flush()

    def flush(self) -> None:
        """Write the deals whose actions changed since the last write."""
        with self._lock:
            changed = {deal: list(actions) for deal, actions in self._latest.items()
                       if self._written.get(deal) != len(actions)}
        if not changed:
            return
        with Session(self.bind) as session:
            write_live_deals(session, self.match_id, changed)
        self._written.update({deal: len(actions) for deal, actions in changed.items()})

    def close(self) -> None:
        """Stop writing and remove the match's rows."""
        self._stop.set()
        self._thread.join()
        with contextlib.suppress(Exception), Session(self.bind) as session:
            remove_live_deals(session, self.match_id)


@contextlib.contextmanager
def live_feed(session: Session, match_id: str, enabled: bool) -> Iterator[ActionHook | None]:
    """The action hook feeding watchers of ``match_id`` (None unless ``enabled``)."""
    if not enabled:
        yield None
        return
    feed = LiveFeed(session.get_bind(), match_id)
    try:
        yield feed
    finally:
        feed.close()
