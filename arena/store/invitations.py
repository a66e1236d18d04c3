"""Invitation codes: an admin makes one, one person registers with it; kept as its SHA-256."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.accounts import AccountError, token_digest
from arena.store.models import Invitation, utc_now

DEFAULT_DAYS = 7
"""How long an invitation lasts when no number of days is given."""


class BadInvitation(AccountError):
    """An invitation code that is missing, unknown, used or expired."""


def create_invitation(session: Session, admin_id: int,
                      days: int = DEFAULT_DAYS) -> tuple[str, Invitation]:
    """A new invitation (flushed, not committed): its code, shown once, and its row."""
    if days < 1:
        raise AccountError(f"an invitation lasts at least 1 day, not {days}")
    code = secrets.token_urlsafe(18)
    now = utc_now()
    row = Invitation(code_sha256=token_digest(code), created_by=admin_id, created_at=now,
                     expires_at=now + timedelta(days=days))
    session.add(row)
    session.flush()
    return code, row


def redeem_invitation(session: Session, code: str, user_id: int,
                      now: datetime | None = None) -> Invitation:
    """Mark the invitation of that code used by the user (flushed, not committed), or
    ``BadInvitation`` saying why it cannot be."""
    if not code:
        raise BadInvitation("registration on this service is by invitation: ask an admin for "
                            "a code and pass it with --invite CODE")
    row = session.scalars(select(Invitation).where(
        Invitation.code_sha256 == token_digest(code)).with_for_update()).one_or_none()
    now = now or utc_now()
    if row is None:
        raise BadInvitation("unknown invitation code: check it, or ask an admin for another")
    if row.used_at is not None:
        raise BadInvitation("this invitation code was already used; ask an admin for another")
    if row.expires_at <= now:
        raise BadInvitation("this invitation code has expired; ask an admin for another")
    row.used_by, row.used_at = user_id, now
    session.flush()
    return row
