"""Uploaded bots: an archive unpacked safely into a folder, then built into an image in Docker.

An uploaded bot never runs anything on the host: ``bot.toml`` ``build`` commands are refused,
and the image is built by the Docker daemon without network, within time and size limits, on
the offline base image. The caller names the image (the service namespaces tags by user).
With ``CARDARENA_REGISTRY`` set, the built image is pushed there and returned pinned by digest,
so that workers on any host pull exactly it (docs/registry.md).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

from arena.bots import MANIFEST, BotConfigError, BotManifest
from arena.sandbox import labels
from arena.sandbox.bases import base_variant, variant_of_tag
from arena.sandbox.build import run_build
from arena.sandbox.engine import docker_client
from arena.sandbox.errors import BuildError
from arena.sandbox.images import DOCKERFILE, BotImage
from arena.sandbox.registry import configured_registry, push_image
from arena.server.archive import (
    UploadError,
    UploadLimits,
    UploadTimedOut,
    UploadTooLarge,
    quoted,
    unpack_archive,
)
from arena.server.dockerfile_policy import check_dockerfile

__all__ = [
    "UploadError",
    "UploadLimits",
    "UploadTimedOut",
    "UploadTooLarge",
    "build_uploaded_bot",
    "find_bot_folder",
    "load_upload_manifest",
    "publish",
    "unpack_bot_archive",
    "upload_refusal",
]

MANIFEST_BYTES = 64 * 2**10
"""The largest ``bot.toml`` an upload may hold."""

DEFAULT_LIMITS = UploadLimits()
"""The limits used when the caller gives none."""

IGNORED_TOP_LEVEL = frozenset({"__MACOSX"})
"""Top-level folders archivers add that do not count when looking for the bot's folder."""


def unpack_bot_archive(data: bytes, into: Path, limits: UploadLimits = DEFAULT_LIMITS) -> Path:
    """Unpack a tar/tar.gz/zip (detected from the bytes, not a name) into the empty folder `into`;
    return the bot folder (the one holding the Dockerfile: `into` itself, or its single top-level
    directory). Raises UploadError and leaves nothing behind in `into` on refusal."""
    created = _prepare(into)
    try:
        unpack_archive(data, into, limits)
        folder = find_bot_folder(into)
        load_upload_manifest(folder)
        check_dockerfile(folder / DOCKERFILE)
    except BaseException:
        _clear(into, remove=created)
        raise
    return folder


def find_bot_folder(root: Path) -> Path:
    """The folder holding the Dockerfile: ``root`` itself or its single top-level folder."""
    if _is_plain_file(root / DOCKERFILE):
        return root
    entries = [entry for entry in root.iterdir() if entry.name not in IGNORED_TOP_LEVEL]
    if (len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink()
            and _is_plain_file(entries[0] / DOCKERFILE)):
        return entries[0]
    raise UploadError(f"no {DOCKERFILE} at the archive's root or in its single top-level "
                      f"folder; see docs/sandbox.md")


def load_upload_manifest(folder: Path) -> BotManifest:
    """The bot's checked ``bot.toml``, or an UploadError (host build commands are refused)."""
    file = folder / MANIFEST
    if not _is_plain_file(file):
        raise UploadError(f"no {MANIFEST} next to the {DOCKERFILE}; see docs/bots.md")
    if file.stat().st_size > MANIFEST_BYTES:
        raise UploadError(f"{MANIFEST} is over {MANIFEST_BYTES // 2**10} KiB")
    try:
        manifest = BotManifest.load(folder)
    except BotConfigError as error:
        message = str(error).removeprefix(f"bot {folder}: ")
        raise UploadError(f"the uploaded bot: {message}") from None
    if manifest.build:
        raise UploadError(f"{MANIFEST} has a 'build' command: host build commands are not "
                          f"allowed in uploads; build inside the {DOCKERFILE}")
    return manifest


def build_uploaded_bot(folder: Path, *, tag: str, limits: UploadLimits = DEFAULT_LIMITS,
                       progress: Callable[[str], None] | None = None,
                       base: str | None = None) -> BotImage:
    """Build an unpacked bot folder into image `tag` in the sandbox builder (no network, time and
    size caps, the checked reading of its Dockerfile, every RUN guarded), on ``base`` or else
    the base its ``bot.toml`` names; raise UploadError with the build's last lines on failure or
    timeout."""
    manifest = load_upload_manifest(folder)
    variant = base_variant(manifest.base)
    base = base or variant.tag
    if not _is_plain_file(folder / DOCKERFILE):
        raise UploadError(f"no {DOCKERFILE} in the bot's folder; see docs/sandbox.md")
    _check_tree(folder)
    dockerfile = check_dockerfile(folder / DOCKERFILE)
    base_id = _require_base(base)
    image_labels = {labels.SANDBOX: "1", labels.BOT_NAME: manifest.name,
                    labels.BOT_VERSION: manifest.version,
                    labels.BOT_LANGUAGE: manifest.language,
                    labels.BOT_GAMES: ",".join(manifest.games)}
    try:
        image_id = run_build(folder, tag=tag, what=f"bot {manifest.name}",
                             timeout_s=limits.build_timeout_s, max_bytes=limits.image_bytes,
                             buildargs={"BASE": base_id}, labels=image_labels,
                             progress=progress, dockerfile=dockerfile, base_image=base_id)
    except BuildError as error:
        raise upload_refusal(error) from None
    image = BotImage(ref=tag, image_id=image_id, name=manifest.name, version=manifest.version,
                     games=manifest.games, language=manifest.language)
    return publish(image, progress)


def publish(image: BotImage, progress: Callable[[str], None] | None = None) -> BotImage:
    """The built image pushed to the registry ``CARDARENA_REGISTRY`` names and pinned by
    digest, or as it is when none is configured (``RegistryError`` when the push fails)."""
    registry = configured_registry()
    return image if registry is None else push_image(image, registry, progress)


def upload_refusal(error: BuildError) -> UploadError:
    """The UploadError for a failed build: a timeout, a size cap, or any other failure."""
    message = str(error)
    if "past its time limit" in message:
        return UploadTimedOut(message, log=error.log)
    if "over the limit of" in message:
        return UploadTooLarge(message, log=error.log)
    return UploadError(message, log=error.log)


def _prepare(into: Path) -> bool:
    """Make sure ``into`` is an empty folder; True when it had to be made."""
    if not into.exists():
        into.mkdir(mode=0o755)
        return True
    if into.is_symlink() or not into.is_dir():
        raise ValueError(f"{into} is not a folder")
    if any(into.iterdir()):
        raise ValueError(f"{into} is not empty")
    return False


def _clear(into: Path, *, remove: bool) -> None:
    """Remove everything under ``into`` (and ``into`` itself when it was made here)."""
    if remove:
        shutil.rmtree(into, ignore_errors=True)
        return
    for entry in into.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _is_plain_file(path: Path) -> bool:
    """True when ``path`` is a regular file, not a link to one."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _check_tree(folder: Path) -> None:
    """Refuse a bot folder holding anything but plain files and folders."""
    for parent, folders, files in os.walk(folder):
        for name in [*folders, *files]:
            mode = Path(parent, name).lstat().st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                relative = os.path.relpath(Path(parent, name), folder)
                raise UploadError(f"the bot's folder holds {quoted(relative)}, which is not a "
                                  f"plain file or folder; links are not allowed in uploads")


def _require_base(base: str) -> str:
    """The base image's id (``FROM ${BASE}`` names it by id, so nothing is looked up by name or
    pulled); ``BuildError`` when it is missing."""
    try:
        return str(docker_client().api.inspect_image(base)["Id"])
    except Exception as error:
        if getattr(getattr(error, "response", None), "status_code", None) in (400, 404):
            name = base.removesuffix(":latest")
            raise BuildError(f"the base image {name} is missing; run "
                             f"`{variant_of_tag(base).build_command}`") from None
        raise
