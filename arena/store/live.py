"""The actions so far of the deals in play, for watchers: written while a match runs, removed
once it is played.

The writer and the remover commit; the reader leaves that to its caller.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from arena.store.models import LiveDeal, utc_now


def write_live_deals(session: Session, match_id: str,
                     deals: Mapping[int, list[int]]) -> None:
    """Store the actions so far of some deals of a match (replacing what was there)."""
    for deal, actions in deals.items():
        session.merge(LiveDeal(match_id=match_id, deal=deal, actions=actions,
                               updated_at=utc_now()))
    session.commit()


def remove_live_deals(session: Session, match_id: str) -> None:
    """Remove a match's deals in play."""
    session.execute(delete(LiveDeal).where(LiveDeal.match_id == match_id))
    session.commit()


def live_deals(session: Session, match_id: str) -> dict[int, list[int]]:
    """The actions so far of each deal of a match in play, by deal."""
    return {row.deal: list(row.actions) for row in session.scalars(
        select(LiveDeal).where(LiveDeal.match_id == match_id))}
