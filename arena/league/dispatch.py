"""Running a league through Celery: send its matches, watch the database, sweep, stop at the end.

The database says what is left to do, so the dispatcher can be stopped and started again at
any time. Each round it:

- makes void the matches that used up their attempts;
- sends again the matches whose lease expired (their worker died: the sweeper), once for each
  lease that ran out;
- sends the pending matches not sent yet, and sends again those still waiting (pending, or with
  an expired lease) a while after they were sent, if the queue is empty (their message was
  lost, as when a broker restarts without persistence);
- reports the counts, and stops when no match is pending or leased.

A match sent twice is harmless: the second delivery finds the lease taken or the match done.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from amqp.exceptions import NotFound
from celery import Celery
from kombu.exceptions import ChannelError, OperationalError

from arena.league.celery_app import (
    CelerySettings,
    check_broker,
    make_celery_app,
)
from arena.league.status import find_league
from arena.league.tasks import QUEUE, send_match
from arena.store import (
    DEFAULT_MAX_ATTEMPTS,
    MatchStatus,
    Store,
    database_url,
    open_store,
    void_exhausted,
)
from arena.store.matches import expired_in_league, pending_ids, status_counts
from arena.store.models import utc_now
from arena.telemetry.metrics import count_lease_expiries

POLL_S = 0.5
"""How often the dispatcher looks at the database."""

RESEND_AFTER_S = 10.0
"""How long a sent match may stay pending, with the queue empty, before it is sent again."""


@dataclass(frozen=True)
class LeagueCounts:
    """How many matches of a league stand where."""

    total: int
    pending: int
    leased: int
    done: int
    void: int

    @property
    def finished(self) -> int:
        """Matches that will not run again: done or void."""
        return self.done + self.void


Progress = Callable[[LeagueCounts], None]
"""Called with the counts after every round of the dispatcher."""


def dispatch_league(store_url: str, league: str, broker_url: str,
                    progress: Progress | None = None, *,
                    settings: CelerySettings | None = None,
                    max_attempts: int = DEFAULT_MAX_ATTEMPTS, poll_s: float = POLL_S,
                    resend_after_s: float = RESEND_AFTER_S) -> LeagueCounts:
    """Send every pending match of ``league`` (its name) to the workers; return when all ended.

    Raises ``DistributionError`` for an unreachable broker, ``LeagueError`` for an unknown
    league and ``StoreError`` for an unreachable database (each one line).
    """
    app = make_celery_app(settings or CelerySettings(broker_url))
    url = database_url(store_url).render_as_string(hide_password=False)
    with open_store(url) as store:
        league_id = league_id_of(store, league)
        check_broker(app)
        dispatcher = Dispatcher(app, store, league_id, url, max_attempts, resend_after_s)
        while True:
            counts = dispatcher.step()
            if progress is not None:
                progress(counts)
            if counts.pending == 0 and counts.leased == 0:
                return counts
            time.sleep(poll_s)


def league_id_of(store: Store, name: str) -> int:
    """The id of the league called ``name``, or ``LeagueError`` (one line)."""
    with store.session() as session:
        return find_league(session, name).id


def league_counts(store: Store, league_id: int) -> LeagueCounts:
    """The league's matches counted by status."""
    with store.session() as session:
        by_status = status_counts(session, league_id)
    return LeagueCounts(total=sum(by_status.values()),
                        pending=by_status.get(MatchStatus.PENDING, 0),
                        leased=by_status.get(MatchStatus.LEASED, 0),
                        done=by_status.get(MatchStatus.DONE, 0),
                        void=by_status.get(MatchStatus.VOID, 0))


class Dispatcher:
    """One league's matches on their way to the workers: what was sent, and when."""

    def __init__(self, app: Celery, store: Store, league_id: int, store_url: str,
                 max_attempts: int, resend_after_s: float) -> None:
        """Nothing sent yet."""
        self.app = app
        self.store = store
        self.league_id = league_id
        self.store_url = store_url
        self.max_attempts = max_attempts
        self.resend_after_s = resend_after_s
        self.sent_at: dict[str, float] = {}
        """When each match was last sent (monotonic seconds)."""
        self.swept: dict[str, datetime | None] = {}
        """The expired lease each swept match was sent again for."""

    def step(self) -> LeagueCounts:
        """One round: void the exhausted, sweep expired leases, send what waits; the counts."""
        with self.store.session() as session:
            void_exhausted(session, self.max_attempts)
            pending = pending_ids(session, self.league_id)
            expired = expired_in_league(session, self.league_id, utc_now())
            session.commit()
        swept = [match_id for match_id, expiry in expired.items()
                 if self.swept.get(match_id) != expiry]
        unsent = [match_id for match_id in pending if match_id not in self.sent_at]
        now = time.monotonic()
        stale = [match_id for match_id in [*pending, *expired]
                 if match_id in self.sent_at and match_id not in swept
                 and now - self.sent_at[match_id] >= self.resend_after_s]
        if stale and self.queue_length() != 0:
            stale = []
        for match_id in [*swept, *unsent, *stale]:
            if not send_match(self.app, match_id, self.store_url):
                break
            self.sent_at[match_id] = time.monotonic()
            if match_id in expired:
                count_lease_expiries(int(match_id in swept))
                self.swept[match_id] = expired[match_id]
        return league_counts(self.store, self.league_id)

    def queue_length(self) -> int | None:
        """Messages waiting in the queue; None if the broker cannot tell now."""
        try:
            with self.app.connection_for_write() as connection:
                connection.ensure_connection(max_retries=1)
                declared = connection.default_channel.queue_declare(QUEUE, passive=True)
        except (ChannelError, NotFound):
            return 0
        except (OperationalError, OSError):
            return None
        return int(declared.message_count)
