"""The stored deal records of a match as one viewer may see them.

This is the only place the service reads the records of played deals for what it hands out:
every API call, page and download that gives a record or a bot's log gets it from here, so the
logs of a bot (its stderr, debug notes, the text of its faults and of its ending) reach only
its owner (``arena.match.privacy``) and to the service's admins. A viewer is a user id,
``ADMIN`` for an admin (every seat's logs are kept), or None for someone who is not signed in
(the web pages): then every seat's logs are withheld. The operator reads the database itself
(the ``arena league`` commands).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from sqlalchemy.orm import Session

from arena.match.privacy import entrant_seats, withhold_logs
from arena.store import Match, Store
from arena.store.bots import owned_version_ids
from arena.store.matches import record_rows

ADMIN: Final = "admin"
"""The viewer that is an admin of the service: every seat's logs are kept."""

Viewer = int | Literal["admin"] | None
"""The user who asks (its id), ``ADMIN``, or None for nobody signed in."""


def viewer_of(user_id: int, is_admin: bool) -> Viewer:
    """The viewer a user reads as: ``ADMIN`` for an admin, else its id."""
    return ADMIN if is_admin else user_id


def owned_versions(session: Session, viewer: Viewer) -> frozenset[int]:
    """The ids of every version of the viewer's bots (an admin's own bots)."""
    if viewer is None or viewer == ADMIN:
        return frozenset()
    return owned_version_ids(session, viewer)


def owned_entrants(session: Session, match: Match, viewer: Viewer) -> frozenset[int]:
    """The places in the match's entrants held by the viewer's bots (every place for an
    admin)."""
    if viewer == ADMIN:
        return frozenset(range(len(match.entrants)))
    versions = owned_versions(session, viewer)
    return frozenset(index for index, version in enumerate(match.entrants)
                     if version in versions)


def viewable_records(session: Session, match: Match, viewer: Viewer) -> list[dict[str, Any]]:
    """Every deal record of a match, in deal order, with the logs of the seats the viewer's
    bots did not hold withheld."""
    mine = owned_entrants(session, match, viewer)
    rows = record_rows(session, match.id)
    return [withhold_logs(row.record, entrant_seats(row.record, mine)) for row in rows]


def match_records(store: Store, match_id: str, viewer: Viewer) -> list[dict[str, Any]]:
    """``viewable_records`` of the match of that id (none for an unknown match)."""
    with store.session() as session:
        match = session.get(Match, match_id)
        return [] if match is None else viewable_records(session, match, viewer)
