"""Bots on the service: uploads built into per-user images, listing, deletion, ownership."""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from sqlalchemy.orm import Session

from arena.sandbox.images import image_tag
from arena.sandbox.registry import RegistryError, is_pinned
from arena.server.api.auth import Caller
from arena.server.api.errors import ApiError, denied, invalid, not_found
from arena.store import Bot, BotKind, Store, ensure_bot_version
from arena.store.accounts import check_name
from arena.store.bots import (
    add_bot,
    bot_named,
    delete_bot,
    in_a_league,
    uploaded_bots,
)

UPLOADS = "uploads"
"""The folder of the data directory that keeps the unpacked uploads."""


@dataclass(frozen=True)
class Uploads:
    """How uploads are unpacked and built, and the limits they are held to."""

    unpack: Callable[[bytes, Path, Any], Path]
    """``unpack(archive, into, limits)``: the bot folder unpacked into ``into``."""
    build: Callable[..., Any]
    """``build(folder, tag=..., limits=...)``: the built ``BotImage``."""
    error: type[Exception]
    """The error of a refused upload (its text is the user's message)."""
    limits: Any


def sandbox_uploads() -> Uploads:
    """Uploads unpacked safely and built in the Docker sandbox, at the default limits."""
    from arena.server.uploads import (
        UploadError,
        UploadLimits,
        build_uploaded_bot,
        unpack_bot_archive,
    )

    return Uploads(unpack=unpack_bot_archive, build=build_uploaded_bot, error=UploadError,
                   limits=UploadLimits())


@dataclass(frozen=True, slots=True)
class Submitted:
    """A bot version just built: the bot's name and the version's id."""

    bot: str
    version_id: int


def find_bot(session: Session, name: str) -> Bot:
    """The bot of that name, or NOT_FOUND."""
    bot = bot_named(session, name)
    if bot is None:
        raise not_found(f"no bot named {name!r} (arena remote bots lists them)")
    return bot


def owned_bot(session: Session, caller: Caller, name: str) -> Bot:
    """The caller's bot of that name: NOT_FOUND when missing, PERMISSION_DENIED when not theirs."""
    bot = find_bot(session, name)
    if bot.owner_id != caller.id:
        raise denied(f"the bot {name!r} belongs to another user")
    return bot


class BotCatalog:
    """Submits, lists and deletes the bots of the service's users."""

    def __init__(self, store: Store, data_dir: Path, uploads: Uploads | None = None) -> None:
        """Keep the store, where uploads are unpacked, and how (None: the Docker sandbox)."""
        self.store = store
        self.data_dir = data_dir
        self._uploads = uploads
        self._build_lock = threading.Lock()

    @property
    def uploads(self) -> Uploads:
        """How uploads are unpacked and built."""
        if self._uploads is None:
            self._uploads = sandbox_uploads()
        return self._uploads

    def submit(self, caller: Caller, name: str, archive: bytes) -> Submitted:
        """Unpack and build an archive as a new version of the caller's bot ``name``."""
        check_name(name, "bot name")
        uploads = self.uploads
        limits = uploads.limits
        if not archive:
            raise invalid("the archive is empty: send a tar, tar.gz or zip of the bot folder")
        if len(archive) > limits.archive_bytes:
            raise ApiError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           f"the archive has {len(archive)} bytes, over the limit of "
                           f"{limits.archive_bytes}")
        with self.store.session() as session:
            bot = bot_named(session, name)
            if bot is not None and bot.owner_id != caller.id:
                raise denied(f"the bot name {name!r} belongs to another user; choose another")
            number = len(bot.versions) + 1 if bot is not None else 1
        with self._build_lock:
            folder = self._fresh_folder(caller.name, name, number)
            try:
                bot_folder = uploads.unpack(archive, folder, limits)
                tag = image_tag(f"{caller.name}-{name}", folder.name)
                started = time.monotonic()
                image = uploads.build(bot_folder, tag=tag, limits=limits)
                build_seconds = time.monotonic() - started
            except uploads.error as error:
                shutil.rmtree(folder, ignore_errors=True)
                raise ApiError(upload_status(error), str(error),
                               log=str(getattr(error, "log", "") or "")) from None
            except RegistryError as error:  # built, but workers could not pull it
                shutil.rmtree(folder, ignore_errors=True)
                remove_image(tag)
                raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, str(error)) from None
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
        return self._record(caller, name, folder.name, image, build_seconds)

    def _fresh_folder(self, user: str, bot: str, number: int) -> Path:
        """A new, empty folder for upload ``number`` (or the next free one)."""
        parent = self.data_dir / UPLOADS / user / bot
        parent.mkdir(parents=True, exist_ok=True)
        while True:
            folder = parent / str(number)
            try:
                folder.mkdir()
                return folder
            except FileExistsError:
                number += 1

    def _record(self, caller: Caller, name: str, version: str, image: Any,
                build_seconds: float) -> Submitted:
        """Store the built image as a version of the caller's bot (creating the bot), with
        how long its build took (the daily build quota counts it)."""
        with self.store.session() as session:
            bot = add_bot(session, name, caller.id)
            if bot is None:
                bot = find_bot(session, name)
            if bot.owner_id != caller.id:
                raise denied(f"the bot name {name!r} belongs to another user; choose another")
            row = ensure_bot_version(session, name, version, BotKind.DOCKER,
                                     image_ref=getattr(image, "pinned", "") or image.ref,
                                     image_id=image.image_id,
                                     games=tuple(image.games), language=image.language)
            row.build_seconds = build_seconds
            session.commit()
            return Submitted(bot=name, version_id=row.id)

    def bots(self, caller: Caller, mine: bool) -> list[Bot]:
        """Every uploaded bot (or the caller's), by name, versions loaded."""
        session = self.store.session()
        with session:
            found = uploaded_bots(session, caller.id if mine else None)
            for bot in found:
                _ = bot.owner, list(bot.versions)
            session.expunge_all()
            return found

    def delete(self, caller: Caller, name: str) -> list[str]:
        """Delete one of the caller's bots that no league uses; the images removed."""
        with self.store.session() as session:
            bot = owned_bot(session, caller, name)
            if in_a_league(session, bot.id):
                raise ApiError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"the bot {name!r} plays in a league, whose results need it; "
                               "it cannot be deleted")
            images = [(version.image_ref, version.image_id) for version in bot.versions
                      if version.image_ref]
            delete_bot(session, bot)
            session.commit()
        shutil.rmtree(self.data_dir / UPLOADS / caller.name / name, ignore_errors=True)
        # A pinned image goes by its id, with every tag it has here (the registry keeps it).
        return [ref for ref, image_id in images
                if remove_image(image_id if is_pinned(ref) and image_id else ref)]


def upload_status(error: Exception) -> grpc.StatusCode:
    """The status of a refused upload: a cap exceeded, a build that timed out, or bad input."""
    from arena.server.archive import UploadTimedOut, UploadTooLarge

    if isinstance(error, UploadTimedOut):
        return grpc.StatusCode.DEADLINE_EXCEEDED
    if isinstance(error, UploadTooLarge):
        return grpc.StatusCode.RESOURCE_EXHAUSTED
    return grpc.StatusCode.INVALID_ARGUMENT


def remove_image(ref: str) -> bool:
    """Remove a bot image from the Docker engine; True when it was removed."""
    with contextlib.suppress(Exception):
        from arena.sandbox.engine import docker_client

        docker_client().images.remove(ref, force=True)
        return True
    return False
