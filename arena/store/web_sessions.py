"""Sign-ins to the web pages: a random value in the browser's cookie, kept here only as its
SHA-256, mapped to the user until it expires or the user signs out.

Every web process reads the same table, so a session made by one is known to all.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from arena.store.accounts import token_digest
from arena.store.models import User, WebSession, utc_now

SESSION_DAYS = 14
"""How long a sign-in lasts."""


def start_web_session(session: Session, user_id: int, days: int = SESSION_DAYS) -> str:
    """A new sign-in of the user (committed; expired ones of anyone dropped): the value for
    the cookie, shown once."""
    now = utc_now()
    session.execute(delete(WebSession).where(WebSession.expires_at <= now))
    value = secrets.token_urlsafe(32)
    session.add(WebSession(user_id=user_id, session_sha256=token_digest(value),
                           created_at=now, expires_at=now + timedelta(days=days)))
    session.commit()
    return value


def web_session_user(session: Session, value: str, now: datetime | None = None) -> User | None:
    """The user signed in with that cookie value, or None (unknown or expired, or the user
    disabled by an admin)."""
    row = session.scalars(select(WebSession).where(
        WebSession.session_sha256 == token_digest(value))).one_or_none()
    if row is None or row.expires_at <= (now or utc_now()) or row.user.disabled_at is not None:
        return None
    return row.user


def end_web_session(session: Session, value: str) -> None:
    """Sign out the session of that cookie value (committed; nothing if unknown)."""
    session.execute(delete(WebSession).where(
        WebSession.session_sha256 == token_digest(value)))
    session.commit()
