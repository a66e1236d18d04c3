"""The audit log: every change to accounts and bots, with who made it, what, to what, and when.

Entries are added in the same transaction as the change they tell of, so a change that is
rolled back leaves no entry, and one that is committed always has one.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.models import AuditEntry, utc_now

OPERATOR = "operator"
"""The actor of a change made by a command run on the database itself."""

DEFAULT_LIMIT = 100
"""Entries read when no limit is given."""


def audit(session: Session, actor: str, action: str, target: str, detail: str = "") -> None:
    """Add an entry (flushed with the session's next flush, committed with its change)."""
    session.add(AuditEntry(at=utc_now(), actor=actor, action=action, target=target,
                           detail=detail))


def audit_entries(session: Session, limit: int = 0) -> list[AuditEntry]:
    """The newest entries first, at most ``limit`` (0: ``DEFAULT_LIMIT``)."""
    return list(session.scalars(select(AuditEntry).order_by(
        AuditEntry.at.desc(), AuditEntry.id.desc()).limit(limit or DEFAULT_LIMIT)))
