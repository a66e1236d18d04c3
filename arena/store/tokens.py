"""A user's API tokens: listed (never shown again), revoked, rotated; each may expire."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.accounts import AccountError, UnknownAccount, issue_token
from arena.store.models import ApiToken, User, utc_now


class UnknownToken(UnknownAccount):
    """A token id that is not one of the user's."""


def expiry(days: int | None, now: datetime | None = None) -> datetime | None:
    """When a token made now for ``days`` expires (None: never)."""
    if days is None:
        return None
    if days < 1:
        raise AccountError(f"a token lasts at least 1 day, not {days}")
    return (now or utc_now()) + timedelta(days=days)


def is_live(token: ApiToken, now: datetime | None = None) -> bool:
    """True when the token is neither revoked nor expired."""
    now = now or utc_now()
    return token.revoked_at is None and (token.expires_at is None or token.expires_at > now)


def user_tokens(session: Session, user_id: int, every: bool = False) -> list[ApiToken]:
    """The user's tokens, oldest first: the live ones, or ``every`` one."""
    rows = session.scalars(select(ApiToken).where(ApiToken.user_id == user_id)
                           .order_by(ApiToken.id)).all()
    return [row for row in rows if every or is_live(row)]


def user_token(session: Session, user_id: int, token_id: int) -> ApiToken:
    """The user's token of that id, or ``UnknownToken``."""
    row = session.get(ApiToken, token_id)
    if row is None or row.user_id != user_id:
        raise UnknownToken(f"you have no API token {token_id} (arena remote token list shows "
                           "yours)")
    return row


def revoke_token(session: Session, user_id: int, token_id: int) -> ApiToken:
    """Revoke one of the user's tokens (flushed, not committed); revoking twice is harmless."""
    row = user_token(session, user_id, token_id)
    if row.revoked_at is None:
        row.revoked_at = utc_now()
    session.flush()
    return row


def rotate_token(session: Session, user: User, token_id: int,
                 expires_at: datetime | None) -> tuple[str, ApiToken, ApiToken]:
    """A new token in place of one of the user's, which is revoked (flushed, not committed):
    the new token's text, its row, and the old row."""
    old = user_token(session, user.id, token_id)
    if not is_live(old):
        raise AccountError(f"API token {token_id} is already revoked or expired; make a new "
                           "one with arena remote token create")
    old.revoked_at = utc_now()
    text, row = issue_token(session, user, expires_at)
    return text, row, old
