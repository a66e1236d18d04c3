"""Users and their API tokens: a token is shown once and kept only as its SHA-256."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.store.models import ApiToken, User, utc_now

NAME_PATTERN = re.compile(r"[a-z][a-z0-9_-]{0,39}")
"""User (and service bot) names: a lowercase letter, then up to 39 letters, digits, - or _."""

NAME_RULE = "1 to 40 characters: lowercase letters, digits, '-' and '_', starting with a letter"
"""The rule a name follows, for error messages."""


class AccountError(ValueError):
    """Bad input for an account: one line saying what to change."""


class UnknownAccount(AccountError):
    """A user, token or other account thing named that does not exist."""


class NameTaken(AccountError):
    """A user name that is already registered."""


def check_name(name: str, what: str = "user name") -> str:
    """The name, or ``AccountError`` when it breaks ``NAME_RULE``."""
    if not NAME_PATTERN.fullmatch(name):
        raise AccountError(f"bad {what} {name!r}: {NAME_RULE}")
    return name


def token_digest(token: str) -> str:
    """The hex SHA-256 of a token's text, as stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


TOKEN_PREFIX_CHARS = 6
"""Characters of a token kept in the clear, to tell a user's tokens apart in listings."""


def issue_token(session: Session, user: User,
                expires_at: datetime | None = None) -> tuple[str, ApiToken]:
    """Add a fresh token for ``user`` (flushed, not committed), lasting until ``expires_at``
    (None: for ever): its text and its row."""
    token = secrets.token_urlsafe(32)
    row = ApiToken(user_id=user.id, token_sha256=token_digest(token),
                   prefix=token[:TOKEN_PREFIX_CHARS], expires_at=expires_at)
    session.add(row)
    session.flush()
    return token, row


def new_token(session: Session, user: User, expires_at: datetime | None = None) -> str:
    """``issue_token``'s text."""
    return issue_token(session, user, expires_at)[0]


def register_user(session: Session, name: str,
                  expires_at: datetime | None = None) -> tuple[User, str]:
    """Create a user and its first token (flushed, not committed); ``NameTaken`` when the
    name is used."""
    check_name(name)
    if session.scalars(select(User.id).where(User.name == name)).first() is not None:
        raise NameTaken(f"the user name {name!r} is taken; choose another")
    try:
        user = User(name=name)
        session.add(user)
        session.flush()
    except IntegrityError:
        session.rollback()
        raise NameTaken(f"the user name {name!r} is taken; choose another") from None
    return user, new_token(session, user, expires_at)


@dataclass(frozen=True, slots=True)
class TokenCheck:
    """What a token presented to the service is: its user and row, or why it is refused."""

    user: User | None
    token_id: int | None = None
    refusal: str = ""


def check_token(session: Session, token: str, now: datetime | None = None) -> TokenCheck:
    """The token's user when it is good (its last use noted and committed), else the one-line
    reason it is refused: unknown, revoked, expired, or its user disabled."""
    row = session.scalars(select(ApiToken).where(
        ApiToken.token_sha256 == token_digest(token))).one_or_none()
    now = now or utc_now()
    if row is None:
        return TokenCheck(None, refusal="unknown API token: check it, or register for a new one")
    if row.revoked_at is not None:
        return TokenCheck(None, row.id, f"API token {row.id} was revoked; use another "
                                        "(arena remote token create makes one)")
    if row.expires_at is not None and row.expires_at <= now:
        return TokenCheck(None, row.id, f"API token {row.id} expired at "
                                        f"{row.expires_at.isoformat(timespec='seconds')}; "
                                        "use another, or ask an admin")
    if row.user.disabled_at is not None:
        return TokenCheck(None, row.id, f"the user {row.user.name!r} is disabled by an "
                                        "admin; its tokens are refused")
    row.last_used = now
    user = row.user
    session.commit()
    return TokenCheck(user, row.id)


def user_for_token(session: Session, token: str) -> User | None:
    """The user a good token belongs to (its last use noted and committed), or None."""
    return check_token(session, token).user
