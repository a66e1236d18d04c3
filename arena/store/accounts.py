"""Users and their API tokens: a token is shown once and kept only as its SHA-256."""

from __future__ import annotations

import hashlib
import re
import secrets

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


def new_token(session: Session, user: User) -> str:
    """Add a fresh token for ``user`` (flushed, not committed) and return its text."""
    token = secrets.token_urlsafe(32)
    session.add(ApiToken(user_id=user.id, token_sha256=token_digest(token)))
    session.flush()
    return token


def register_user(session: Session, name: str) -> tuple[User, str]:
    """Create a user and its first token, committed; ``NameTaken`` when the name is used."""
    check_name(name)
    if session.scalars(select(User.id).where(User.name == name)).first() is not None:
        raise NameTaken(f"the user name {name!r} is taken; choose another")
    try:
        user = User(name=name)
        session.add(user)
        session.flush()
        token = new_token(session, user)
        session.commit()
    except IntegrityError:
        session.rollback()
        raise NameTaken(f"the user name {name!r} is taken; choose another") from None
    return user, token


def user_for_token(session: Session, token: str) -> User | None:
    """The user a token belongs to (its last use noted and committed), or None."""
    row = session.scalars(select(ApiToken).where(
        ApiToken.token_sha256 == token_digest(token))).one_or_none()
    if row is None:
        return None
    row.last_used = utc_now()
    user = row.user
    session.commit()
    return user
