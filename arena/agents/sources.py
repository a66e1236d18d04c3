"""Bots as named on the command line and by a league's entrants: a folder run as a process, a
folder built into a Docker image, or a Docker image (``image:NAME``), each made into the seat
spec that plays it.

The Docker modules are imported only when a Docker bot is asked for, so process bots work on a
machine without the ``docker`` package; a Docker bot there raises ``DockerUnavailable``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena.agents.seats import BotSeat, SeatSpec
from arena.bots import BotConfigError

if TYPE_CHECKING:
    from arena.sandbox.images import BotImage

IMAGE_PREFIX = "image:"
"""A bot named ``image:NAME`` is the Docker image NAME (a tag or an image id)."""

PROCESS, DOCKER = "process", "docker"
SANDBOXES = (PROCESS, DOCKER)
"""How a bot folder runs: as a local process, or built into an image and run in a container."""


def image_name(ref: str) -> str | None:
    """The image NAME of ``image:NAME``, or None for a bot folder."""
    if not ref.startswith(IMAGE_PREFIX):
        return None
    name = ref[len(IMAGE_PREFIX):].strip()
    if not name:
        raise BotConfigError(f"bot {ref!r}: no image name after {IMAGE_PREFIX!r}; "
                             f"write {IMAGE_PREFIX}NAME, such as "
                             f"{IMAGE_PREFIX}cardarena-bot/random:1.0.0")
    return name


def is_docker(ref: str, sandbox: str = PROCESS) -> bool:
    """True when the bot runs in a container: an ``image:`` name or ``--sandbox docker``."""
    check_sandbox(sandbox)
    return ref.startswith(IMAGE_PREFIX) or sandbox == DOCKER


def check_sandbox(sandbox: str) -> None:
    """Raise ``BotConfigError`` for an unknown sandbox."""
    if sandbox not in SANDBOXES:
        raise BotConfigError(f"unknown sandbox {sandbox!r}; choose {' or '.join(SANDBOXES)}")


def resolve_image(ref: str, sandbox: str = PROCESS) -> BotImage:
    """The Docker image of a Docker bot: inspected (``image:NAME``; a NAME pinned by digest is
    pulled first when this machine lacks it) or built from its folder."""
    from arena.sandbox.images import build_bot_image, inspect_bot_image
    from arena.sandbox.registry import is_pinned, pull_pinned

    name = image_name(ref)
    if name is not None:
        if is_pinned(name):
            pull_pinned(name)
        return inspect_bot_image(name)
    if sandbox != DOCKER:
        raise BotConfigError(f"bot {ref}: not a Docker bot")
    return build_bot_image(Path(ref))


def pin_image(image: BotImage) -> BotImage:
    """The image pinned by digest: as it is when pinned already or when no registry is
    configured (``CARDARENA_REGISTRY``), else pushed to that registry."""
    from arena.sandbox.registry import configured_registry, push_image

    registry = None if image.pinned else configured_registry()
    return image if registry is None else push_image(image, registry)


def stored_image(ref: str, image_id: str, name: str, version: str, games: Sequence[str],
                 language: str) -> BotImage:
    """A bot image as a league stored it: pinned by digest (``ref``, pulled when a container
    of it starts on a machine that lacks it) or local, inspected by id (``ImageNotFound``)."""
    from arena.sandbox.images import BotImage, inspect_bot_image
    from arena.sandbox.registry import is_pinned

    if is_pinned(ref):
        return BotImage(ref=ref, image_id=image_id, name=name, version=version,
                        games=tuple(games), language=language, pinned=ref)
    return inspect_bot_image(image_id or ref or name)


def require_limits(image: BotImage, allow_unenforced: frozenset[str] = frozenset()) -> None:
    """Raise ``LimitsNotEnforced`` when the engine misses a limit not in ``allow_unenforced``
    (a probe container of ``image`` with the default limits; once per process)."""
    from arena.sandbox.limits import SandboxLimits
    from arena.sandbox.probe import require_enforced

    require_enforced(allow_unenforced, image.image_id, SandboxLimits())


def docker_seat(image: BotImage, allow_unenforced: frozenset[str] = frozenset(),
                temp_root: Path | None = None) -> SeatSpec:
    """A seat for a bot image, run in a hardened container with the default limits."""
    from arena.agents.seats import DockerSeat
    from arena.sandbox.limits import SandboxLimits

    return DockerSeat(image, limits=SandboxLimits(), temp_root=temp_root,
                      allow_unenforced=allow_unenforced)


def bot_seat(ref: str, sandbox: str = PROCESS, allow_unenforced: frozenset[str] = frozenset(),
             temp_root: Path | None = None) -> SeatSpec:
    """The seat spec of a bot named on the command line.

    A bot folder runs as a process (``sandbox="process"``) or is built into an image and run
    in a container (``"docker"``); ``image:NAME`` always runs in a container. For a Docker bot
    the engine must enforce every limit outside ``allow_unenforced`` (``LimitsNotEnforced``).
    """
    if not is_docker(ref, sandbox):
        return BotSeat.from_path(ref, temp_root)
    image = resolve_image(ref, sandbox)
    require_limits(image, allow_unenforced)
    return docker_seat(image, allow_unenforced, temp_root)
