"""The ledger of uploads made through the service: one row per upload, built or refused, with
the time the service spent on it. The daily quotas of uploads and build minutes count it, so
they hold across restarts and count the builds that failed."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.models import UploadAttempt, utc_now


def record_attempt(session: Session, user_id: int, seconds: float, outcome: str) -> None:
    """Note one upload of ``user_id`` that ended now (flushed, not committed)."""
    session.add(UploadAttempt(user_id=user_id, created_at=utc_now(), seconds=seconds,
                              outcome=outcome))
    session.flush()


def attempts_since(session: Session, user_id: int, since: datetime) -> list[UploadAttempt]:
    """The user's uploads from ``since`` on, oldest first."""
    return list(session.scalars(
        select(UploadAttempt).where(UploadAttempt.user_id == user_id,
                                    UploadAttempt.created_at >= since)
        .order_by(UploadAttempt.created_at, UploadAttempt.id)))
