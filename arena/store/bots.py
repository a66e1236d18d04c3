"""Bots and their versions by name: find the row for a runnable version, or add it."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.store.models import Bot, BotKind, BotVersion


def ensure_bot_version(session: Session, name: str, version: str, kind: BotKind, *,
                       path: str | None = None, image_ref: str | None = None,
                       image_id: str | None = None, fingerprint: str = "",
                       games: Sequence[str] = ("*",), language: str = "") -> BotVersion:
    """The version (bot, version, fingerprint), added with its bot if new; flushed, not committed.

    For a Docker bot the fingerprint defaults to the image id, so a rebuilt image with the same
    version string is a new version. Safe against another process adding the same row at once.
    """
    if kind is BotKind.DOCKER and not fingerprint:
        fingerprint = image_id or ""
    found = _find(session, name, version, fingerprint)
    if found is not None:
        return found
    try:
        with session.begin_nested():
            bot = session.scalars(select(Bot).where(Bot.name == name)).one_or_none()
            if bot is None:
                bot = Bot(name=name)
                session.add(bot)
            row = BotVersion(bot=bot, version=version, kind=kind, path=path,
                             image_ref=image_ref, image_id=image_id, fingerprint=fingerprint,
                             games=list(games), language=language)
            session.add(row)
        return row
    except IntegrityError:
        found = _find(session, name, version, fingerprint)
        if found is None:
            raise
        return found


def _find(session: Session, name: str, version: str, fingerprint: str) -> BotVersion | None:
    """The version row, if it exists."""
    return session.scalars(select(BotVersion).join(Bot).where(
        Bot.name == name, BotVersion.version == version,
        BotVersion.fingerprint == fingerprint)).one_or_none()
