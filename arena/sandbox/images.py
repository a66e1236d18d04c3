"""Docker images for bots: the offline base image, bot images built from folders, and lookups.

The base image is made without any registry: a Debian root from ``debootstrap`` imported with
``docker import``, then a stage that installs the engine and the SDK (never the platform) from
wheels fetched on the host. Its variants (``arena.sandbox.bases``) add more wheels to its venv.
A bot image is its folder's ``Dockerfile`` built on the base its ``bot.toml`` names (``ARG
BASE``), labelled with the bot's name, version and games from ``bot.toml``.

The venv keeps pip and setuptools (a bot's Dockerfile may install more wheels with them) but not
setuptools' ``distutils-precedence.pth``, a start-up hook that imports a module at every start
of the interpreter only to reroute a later ``import distutils``; setuptools sets up the same
reroute when it is itself imported.
"""

from __future__ import annotations

import logging
import re
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots import ALL_GAMES, BotConfigError, BotManifest, ensure_built
from arena.sandbox import labels
from arena.sandbox.bases import PYTHON, BaseVariant, base_variant, variant_of_tag
from arena.sandbox.build import Progress, run_build
from arena.sandbox.dockerfile import DockerfileError, read_dockerfile
from arena.sandbox.engine import docker_client
from arena.sandbox.errors import BuildError, ImageNotFound
from arena.sandbox.refs import is_pinned, repository_of
from arena.sandbox.rootfs import build_root
from arena.sandbox.wheels import WIRE_PACKAGE, collect_wheels, download_wheels

log = logging.getLogger(__name__)

BASE_IMAGE = PYTHON.tag
"""The image bot Dockerfiles build on by default (their ``ARG BASE``)."""

ROOT_IMAGE = "cardarena/debian-root:bookworm-slim"
"""The bare Debian root the base image starts from (made once, then reused)."""

BOT_REPOSITORY = "cardarena-bot"
BOT_UID = 10001
DOCKERFILE = "Dockerfile"
DEFAULT_TIMEOUT_S = 600.0
DEFAULT_MAX_BYTES = 2 * 2**30
DOCKERFILE_BYTES = 2**20
"""The largest Dockerfile a local bot build reads."""
BASE_TIMEOUT_S = 1800.0

BASE_DOCKERFILE = """\
FROM {root} AS venv
COPY wheels /tmp/wheels
RUN python3 -m venv /opt/venv \\
 && /opt/venv/bin/pip install --no-index --no-cache-dir --disable-pip-version-check \\
      --find-links /tmp/wheels card-arena-engine cardarena-sdk{compiled} \\
 && rm -f /opt/venv/lib/python3*/site-packages/distutils-precedence.pth

FROM {root}
COPY --from=venv /opt/venv /opt/venv
RUN groupadd --gid {uid} bot \\
 && useradd --uid {uid} --gid {uid} --no-create-home --home-dir /nonexistent \\
      --shell /usr/sbin/nologin bot
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
USER {uid}:{uid}
"""

VARIANT_DOCKERFILE = """\
FROM {base} AS wheels
USER root
COPY wheels /tmp/wheels
RUN /opt/venv/bin/pip install --no-index --no-cache-dir --disable-pip-version-check \\
      --find-links /tmp/wheels --prefix /tmp/added {requirements}

FROM {base}
COPY --from=wheels /tmp/added /opt/venv
"""
"""A variant of the base image: its wheels installed beside the base's venv in a first stage,
then only the installed files copied into that venv."""

TAG_UNSAFE = re.compile(r"[^a-z0-9._-]+")
SEPARATORS = re.compile(r"[._-]{2,}")
VERSION_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class BotImage:
    """A bot's Docker image: how it was named, its id, and the bot it holds."""

    ref: str
    image_id: str
    name: str
    version: str
    games: tuple[str, ...]
    language: str = ""
    """The bot's language, from its image's label (empty for an unlabelled image)."""
    pinned: str = ""
    """The image in a registry, by digest (``REPOSITORY@sha256:HEX``); empty for an image
    that is only local (``arena.sandbox.registry``)."""

    @classmethod
    def from_labels(cls, ref: str, image_id: str, image_labels: dict[str, str],
                    pinned: str = "") -> BotImage:
        """Read the bot from an image's labels (an unlabelled image is named by its ref)."""
        games = tuple(game for game in image_labels.get(labels.BOT_GAMES, "").split(",") if game)
        return cls(ref=ref, image_id=image_id, name=image_labels.get(labels.BOT_NAME) or ref,
                   version=image_labels.get(labels.BOT_VERSION, ""),
                   games=games or (ALL_GAMES,),
                   language=image_labels.get(labels.BOT_LANGUAGE, ""), pinned=pinned)

    @property
    def digest(self) -> str:
        """The digest of the pinned image's manifest (``sha256:HEX``), or empty."""
        return self.pinned.rpartition("@")[2] if self.pinned else ""

    def plays(self, game_id: str) -> bool:
        """True when the image's labels say the bot plays this game."""
        return ALL_GAMES in self.games or game_id in self.games

    def check_game(self, game_id: str) -> None:
        """Raise ``BotConfigError`` when the bot does not play this game."""
        if not self.plays(game_id):
            raise BotConfigError(f"bot {self.name} (image {self.ref}) does not play {game_id}: "
                                 f"its image lists games {', '.join(self.games)}")

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for the match record (the image by digest when pinned,
        with the tag it was named by)."""
        described = {"kind": "docker", "image": self.pinned or self.ref,
                     "image_id": self.image_id, "name": self.name, "version": self.version}
        if self.pinned and self.ref != self.pinned:
            described["tag"] = self.ref
        return described


def image_tag(name: str, version: str) -> str:
    """The tag of a bot's image, ``cardarena-bot/<name>:<version>`` made Docker-safe."""
    repository = SEPARATORS.sub("-", TAG_UNSAFE.sub("-", name.lower())).strip("._-") or "bot"
    tag = VERSION_UNSAFE.sub("-", version).lstrip(".-")[:128] or "latest"
    return f"{BOT_REPOSITORY}/{repository}:{tag}"


IMAGE_ID = re.compile(r"sha256:[0-9a-f]{64}")
"""An image's id: its content's digest, so what it names never changes."""

_BY_ID: dict[str, BotImage] = {}
"""Images inspected by id in this process (a league worker inspects each entrant's image for
every match it plays)."""


def inspect_bot_image(ref: str) -> BotImage:
    """The local image ``ref`` as a ``BotImage``, or raise ``ImageNotFound`` (an image named
    by its id is inspected once per process, until ``forget_image``)."""
    known = _BY_ID.get(ref)
    if known is not None:
        return known
    found = _inspect(ref)
    if IMAGE_ID.fullmatch(ref):
        _BY_ID[ref] = found
    return found


def forget_image(image_id: str) -> None:
    """Inspect the image of this id again next time (it is gone from this machine)."""
    _BY_ID.pop(image_id, None)


def _inspect(ref: str) -> BotImage:
    """The local image ``ref`` as a ``BotImage``, asked of Docker."""
    client = docker_client()
    if not ref.strip():
        raise ImageNotFound("no Docker image named: give a tag or an id, such as "
                            "image:cardarena-bot/random:1.0.0")
    try:
        image = client.api.inspect_image(ref)
    except Exception as error:
        status = _status(error)
        if status == 404:
            raise ImageNotFound(f"no Docker image {ref} on this machine; build it with "
                                f"`arena bot build PATH`") from None
        if status == 400:
            reason = getattr(error, "explanation", None) or str(error)
            raise ImageNotFound(f"{ref!r} is not a Docker image name: "
                                f"{str(reason).rsplit(': ', 1)[-1]}") from None
        raise
    image_labels = (image.get("Config") or {}).get("Labels") or {}
    return BotImage.from_labels(ref, str(image["Id"]), image_labels,
                                pinned=pinned_ref(ref, image.get("RepoDigests") or []))


def pinned_ref(ref: str, repo_digests: list[str]) -> str:
    """The pinned reference of a local image named ``ref``: ``ref`` itself when it names a
    digest, else the image's digest in ``ref``'s repository (from a push or a pull), else
    empty (a local image)."""
    if is_pinned(ref):
        return ref
    repository = repository_of(ref)
    return next((digest for digest in repo_digests
                 if digest.startswith(f"{repository}@") and is_pinned(digest)), "")


def build_bot_image(folder: Path, *, base: str | None = None,
                    timeout_s: float = DEFAULT_TIMEOUT_S, max_bytes: int = DEFAULT_MAX_BYTES,
                    progress: Progress | None = None) -> BotImage:
    """Build a bot folder's Dockerfile on ``base`` (by default the base its ``bot.toml`` names)
    without network, every RUN step under the build guard's disk limit; return the labelled
    image."""
    manifest = BotManifest.load(folder)
    if not (manifest.folder / DOCKERFILE).is_file():
        raise BotConfigError(f"bot {manifest.name}: no {DOCKERFILE} in {folder}; "
                             f"see docs/sandbox.md")
    ensure_built(manifest, progress=progress)
    try:
        dockerfile = read_dockerfile(manifest.folder / DOCKERFILE, DOCKERFILE_BYTES)
    except DockerfileError as error:
        raise BuildError(f"bot {manifest.name}: {error}") from None
    if base is None:
        base = base_variant(manifest.base).tag
    _require_base(base)
    tag = image_tag(manifest.name, manifest.version)
    image_labels = {labels.SANDBOX: "1", labels.BOT_NAME: manifest.name,
                    labels.BOT_VERSION: manifest.version,
                    labels.BOT_LANGUAGE: manifest.language,
                    labels.BOT_GAMES: ",".join(manifest.games)}
    image_id = run_build(manifest.folder, tag=tag, what=f"bot {manifest.name}",
                         timeout_s=timeout_s, max_bytes=max_bytes, buildargs={"BASE": base},
                         labels=image_labels, progress=progress, dockerfile=dockerfile)
    return BotImage(ref=tag, image_id=image_id, name=manifest.name, version=manifest.version,
                    games=manifest.games, language=manifest.language)


def build_base(*, variant: str = PYTHON.name, rebuild: bool = False, mirror: str | None = None,
               project: Path | None = None, tag: str = BASE_IMAGE, root_image: str = ROOT_IMAGE,
               timeout_s: float = BASE_TIMEOUT_S, progress: Progress | None = None) -> str:
    """Build the base image offline (Debian root once, then the wheels), or one of its variants
    (on the base image, made first when missing); return its image id."""
    say = progress or log.info
    wanted = base_variant(variant)
    if wanted != PYTHON:
        if rebuild or not _exists(tag):
            build_base(rebuild=rebuild, mirror=mirror, project=project, tag=tag,
                       root_image=root_image, timeout_s=timeout_s, progress=say)
        return _build_variant(wanted, base=tag, timeout_s=timeout_s, progress=say)
    ensure_root(root_image, rebuild=rebuild, mirror=mirror, progress=say)
    with tempfile.TemporaryDirectory(prefix="cardarena-base-") as scratch:
        context = Path(scratch)
        wheels = collect_wheels(context / "wheels", project=project, progress=say)
        compiled = any(wheel.name.startswith(WIRE_PACKAGE.replace("-", "_") + "-")
                       for wheel in wheels)
        (context / DOCKERFILE).write_text(
            BASE_DOCKERFILE.format(root=root_image, uid=BOT_UID,
                                   compiled=f" {WIRE_PACKAGE}" if compiled else ""),
            encoding="utf-8")
        say(f"building {tag} on {root_image} (no network)")
        image_id = run_build(context, tag=tag, what="the base image", timeout_s=timeout_s,
                             labels={labels.SANDBOX: "1"}, progress=say)
    say(f"{tag}: {image_id}")
    return image_id


def _build_variant(variant: BaseVariant, *, base: str, timeout_s: float,
                   progress: Progress) -> str:
    """Build a variant of the base image offline from wheels fetched on the host."""
    with tempfile.TemporaryDirectory(prefix="cardarena-base-") as scratch:
        context = Path(scratch)
        download_wheels(variant.requirements, context / "wheels", progress=progress)
        dockerfile = VARIANT_DOCKERFILE.format(base=base,
                                               requirements=shlex.join(variant.requirements))
        (context / DOCKERFILE).write_text(dockerfile, encoding="utf-8")
        progress(f"building {variant.tag} on {base} (no network)")
        image_id = run_build(context, tag=variant.tag, what=f"the {variant.name} base image",
                             timeout_s=timeout_s, labels={labels.SANDBOX: "1"},
                             progress=progress)
    progress(f"{variant.tag}: {image_id}")
    return image_id


def ensure_root(root_image: str = ROOT_IMAGE, *, rebuild: bool = False,
                mirror: str | None = None, progress: Progress | None = None) -> bool:
    """Make the Debian root image unless it exists (or ``rebuild``); True when it was made."""
    say = progress or log.info
    if not rebuild and _exists(root_image):
        say(f"{root_image} exists: debootstrap skipped (rebuild to make it again)")
        return False
    build_root(root_image, mirror=mirror, progress=say)
    return True


def _require_base(base: str) -> None:
    """Raise ``BuildError`` when our own base image is wanted and missing (it is never pulled)."""
    if base.startswith("cardarena/") and not _exists(base):
        name = base.removesuffix(":latest")
        raise BuildError(f"the base image {name} is missing; "
                         f"run `{variant_of_tag(base).build_command}`")


def _exists(ref: str) -> bool:
    """True when a local image has this name or id."""
    try:
        docker_client().api.inspect_image(ref)
    except Exception as error:
        if _status(error) in (400, 404):
            return False
        raise
    return True


def _status(error: BaseException) -> int | None:
    """The HTTP status of a Docker API error, or None for any other error."""
    status = getattr(getattr(error, "response", None), "status_code", None)
    return status if isinstance(status, int) else None
