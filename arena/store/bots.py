"""Bots and their versions: find or add them, read them by id or owner, delete a bot."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from arena.store.models import Bot, BotKind, BotVersion, LeagueEntrant


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


def versions_by_id(session: Session, ids: Iterable[int]) -> dict[int, BotVersion]:
    """The rows of some bot versions, by id (ids with no row left out)."""
    return {version.id: version for version in session.scalars(
        select(BotVersion).where(BotVersion.id.in_(set(ids))))}


def _find(session: Session, name: str, version: str, fingerprint: str) -> BotVersion | None:
    """The version row, if it exists."""
    return session.scalars(select(BotVersion).join(Bot).where(
        Bot.name == name, BotVersion.version == version,
        BotVersion.fingerprint == fingerprint)).one_or_none()


def bot_named(session: Session, name: str, *, with_versions: bool = False) -> Bot | None:
    """The bot of that name, if there is one (its versions loaded with it if asked)."""
    query = select(Bot).where(Bot.name == name)
    if with_versions:
        query = query.options(selectinload(Bot.versions))
    return session.scalars(query).one_or_none()


def add_bot(session: Session, name: str, owner_id: int) -> Bot | None:
    """The bot of that name, added for ``owner_id`` if there is none (safe against another
    process adding it at once); None if it still cannot be found."""
    bot = bot_named(session, name)
    if bot is None:
        try:
            with session.begin_nested():
                session.add(Bot(name=name, owner_id=owner_id))
        except IntegrityError:
            pass
        bot = bot_named(session, name)
    return bot


def uploaded_bots(session: Session, owner_id: int | None = None) -> list[Bot]:
    """Every bot that has an owner (or that one owner's), by name."""
    query = select(Bot).where(Bot.owner_id.is_not(None)).order_by(Bot.name)
    if owner_id is not None:
        query = query.where(Bot.owner_id == owner_id)
    return list(session.scalars(query))


def in_a_league(session: Session, bot_id: int) -> bool:
    """True if a version of the bot is entered in a league."""
    return session.scalars(select(LeagueEntrant.id).join(BotVersion).where(
        BotVersion.bot_id == bot_id)).first() is not None


def delete_bot(session: Session, bot: Bot) -> None:
    """Delete a bot and its versions (not committed)."""
    for version in bot.versions:
        session.delete(version)
    session.delete(bot)


def owned_version_ids(session: Session, owner_id: int) -> frozenset[int]:
    """The ids of every version of a user's bots."""
    return frozenset(session.scalars(select(BotVersion.id).join(Bot).where(
        Bot.owner_id == owner_id)))


def version_ids_of(session: Session, bot_id: int) -> set[int]:
    """The ids of a bot's versions."""
    return set(session.scalars(select(BotVersion.id).where(BotVersion.bot_id == bot_id)))


def versions_with_bots(session: Session, ids: Iterable[int]) -> list[BotVersion]:
    """Some bot versions, each with its bot loaded."""
    return list(session.scalars(select(BotVersion).where(BotVersion.id.in_(list(ids))).options(
        selectinload(BotVersion.bot))).all())


def version_owners(session: Session, ids: Iterable[int]) -> dict[int, str]:
    """The bot name of each of some versions, by version id."""
    return {version_id: name for version_id, name in session.execute(
        select(BotVersion.id, Bot.name).join(Bot).where(BotVersion.id.in_(list(ids)))).all()}
