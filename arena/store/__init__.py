"""The store: the database that is the record of truth for bots, leagues, matches and results.

``open_store(url_or_path)`` opens SQLite (the default file under the user's data directory, or
a path) or a server by URL, brings the schema up to date with Alembic, and hands out sessions.
``arena.store.leases`` holds the lease functions that make running a match idempotent.
"""

from arena.store.bots import ensure_bot_version
from arena.store.errors import DatabaseUnreachable, StoreError, UnknownRevision
from arena.store.leases import (
    DEFAULT_MAX_ATTEMPTS,
    SeatOutcome,
    claim_match,
    complete_match,
    expire_owners,
    expired_leases,
    fail_match,
    release_match,
    release_owners,
    renew_lease,
    void_exhausted,
    void_match,
)
from arena.store.location import database_url, default_db_path
from arena.store.models import (
    Base,
    Bot,
    BotKind,
    BotVersion,
    League,
    LeagueEntrant,
    Match,
    MatchRecordRow,
    MatchStatus,
    SeatResult,
    SeedSource,
    User,
)
from arena.store.store import Store, open_store

__all__ = [
    "DEFAULT_MAX_ATTEMPTS",
    "Base",
    "Bot",
    "BotKind",
    "BotVersion",
    "DatabaseUnreachable",
    "League",
    "LeagueEntrant",
    "Match",
    "MatchRecordRow",
    "MatchStatus",
    "SeatOutcome",
    "SeatResult",
    "SeedSource",
    "Store",
    "StoreError",
    "UnknownRevision",
    "User",
    "claim_match",
    "complete_match",
    "database_url",
    "default_db_path",
    "ensure_bot_version",
    "expire_owners",
    "expired_leases",
    "fail_match",
    "open_store",
    "release_match",
    "release_owners",
    "renew_lease",
    "void_exhausted",
    "void_match",
]
