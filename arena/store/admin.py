"""The operator's and admins' controls: granting the admin role, disabling users and bots.

A disabled user's tokens are refused and its bots join no new league; a disabled bot joins no
new league. ``playable`` tells whether a bot may be scheduled.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.accounts import UnknownAccount
from arena.store.audit import audit
from arena.store.models import Bot, User, utc_now


def user_named(session: Session, name: str) -> User:
    """The user of that name, or ``UnknownAccount``."""
    user = session.scalars(select(User).where(User.name == name)).one_or_none()
    if user is None:
        raise UnknownAccount(f"no user named {name!r}")
    return user


def set_admin(session: Session, name: str, admin: bool, actor: str) -> User:
    """Grant (or take away) the admin role of a user, audited (flushed, not committed)."""
    user = user_named(session, name)
    if user.is_admin != admin:
        user.is_admin = admin
        audit(session, actor, "admin.granted" if admin else "admin.revoked", f"user:{name}")
    session.flush()
    return user


def set_user_disabled(session: Session, user: User, disabled: bool, actor: str) -> None:
    """Disable (or enable again) a user, audited (flushed, not committed)."""
    if (user.disabled_at is not None) != disabled:
        user.disabled_at = utc_now() if disabled else None
        audit(session, actor, "user.disabled" if disabled else "user.enabled",
              f"user:{user.name}")
    session.flush()


def set_bot_disabled(session: Session, bot: Bot, disabled: bool, actor: str) -> None:
    """Disable (or enable again) a bot, audited (flushed, not committed)."""
    if (bot.disabled_at is not None) != disabled:
        bot.disabled_at = utc_now() if disabled else None
        audit(session, actor, "bot.disabled" if disabled else "bot.enabled", f"bot:{bot.name}")
    session.flush()


def disabled_reason(bot: Bot) -> str:
    """Why the bot may not join a league (it or its owner disabled), or empty."""
    if bot.disabled_at is not None:
        return f"the bot {bot.name!r} is disabled by an admin"
    if bot.owner is not None and bot.owner.disabled_at is not None:
        return f"the bot {bot.name!r} belongs to a disabled user"
    return ""


def playable(bot: Bot) -> bool:
    """True when the bot may be scheduled into a new league."""
    return not disabled_reason(bot)
