"""Bot images through an OCI registry: pushed and pinned by digest, pulled by digest before play.

A pinned reference names an image by the digest of its manifest, ``REPOSITORY@sha256:HEX``
(``127.0.0.1:5000/cardarena-bot/random@sha256:...``): whatever host reads it gets the same
bytes or nothing. ``push_image`` tags a local bot image into a registry, pushes it and returns
it pinned; ``ensure_local`` makes sure a pinned image is on this machine before its container
starts: when it is missing it is pulled by digest (the engine refuses content that does not
hash to the digest), then its image id is checked against the one recorded with it, and the
engine keeps it as a cache for the next match. An image that is not pinned is a local image,
as without any registry, and is left alone.

``CARDARENA_REGISTRY`` (``HOST[:PORT][/PATH]``) names the registry the service's uploads and
league entrants are pushed to. Every failure is a ``RegistryError``, one line naming the
registry and the image: a registry that does not answer, an image that is not in it, or
content that does not match its digest.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from arena.sandbox.engine import docker_client
from arena.sandbox.errors import SandboxError
from arena.sandbox.refs import (
    DIGEST,
    DOCKER_HUB,
    is_pinned,
    registry_of,
    repository_of,
    split_pinned,
)

if TYPE_CHECKING:
    from arena.sandbox.images import BotImage

__all__ = ["DigestMismatch", "ImageNotInRegistry", "RegistryError", "RegistryUnreachable",
           "check_registry", "configured_registry", "ensure_local", "is_pinned", "pull_pinned",
           "push_image", "push_target", "split_pinned"]

REGISTRY_ENV = "CARDARENA_REGISTRY"
"""The environment variable naming the registry uploads and league entrants are pushed to."""

REGISTRY = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*")
"""``HOST[:PORT][/PATH]``, as Docker names a registry and a path in it."""

Progress = Callable[[str], None]

_pull_locks: dict[str, threading.Lock] = {}
_pull_locks_guard = threading.Lock()


class RegistryError(SandboxError):
    """A registry that cannot give or take an image; the message names it and the image."""


class RegistryUnreachable(RegistryError):
    """A registry that does not answer (down, unknown host, refused, TLS mismatch)."""


class ImageNotInRegistry(RegistryError):
    """A pinned image that the registry does not hold."""


class DigestMismatch(RegistryError):
    """Content that does not match the digest or image id it was asked for."""


def configured_registry() -> str | None:
    """The registry ``CARDARENA_REGISTRY`` names (checked), or None when it is unset or empty."""
    value = os.environ.get(REGISTRY_ENV, "").strip()
    return check_registry(value) if value else None


def check_registry(registry: str) -> str:
    """``registry`` as Docker names it (``HOST[:PORT][/PATH]``, a scheme dropped), or raise
    ``RegistryError`` naming what is wrong with it."""
    name = re.sub(r"^[a-z]+://", "", registry.strip()).rstrip("/")
    if not REGISTRY.fullmatch(name) or name.startswith(("-", ".")):
        raise RegistryError(f"registry {registry!r} is not HOST[:PORT][/PATH], such as "
                            "127.0.0.1:5000 or registry.example.com/bots")
    return name


def push_target(image: BotImage, registry: str) -> tuple[str, str]:
    """The repository and tag ``image`` is pushed as in ``registry``: its own name and tag
    under the registry (an image named by id takes its bot's name and version)."""
    from arena.sandbox.images import image_tag

    ref = image.ref if image.ref and not image.ref.startswith("sha256:") \
        and not is_pinned(image.ref) else image_tag(image.name, image.version)
    repository = repository_of(ref)
    tag = ref[len(repository) + 1:] if ref != repository else "latest"
    if repository.startswith(f"{registry}/"):
        return repository, tag
    if registry_of(repository) != DOCKER_HUB or repository.startswith(f"{DOCKER_HUB}/"):
        repository = repository.partition("/")[2]  # from another registry: its path only
    return f"{registry}/{repository}", tag


def push_image(image: BotImage, registry: str, progress: Progress | None = None) -> BotImage:
    """Push a local bot image to ``registry``; the image, pinned (``RegistryError`` naming the
    registry and the image when the push fails)."""
    from arena.sandbox.images import inspect_bot_image

    registry = check_registry(registry)
    repository, tag = push_target(image, registry)
    target = f"{repository}:{tag}"
    client = docker_client()
    inspect_bot_image(image.image_id)
    try:
        client.api.tag(image.image_id, repository, tag)
    except _docker_errors() as error:
        raise RegistryError(f"cannot name {image.ref} {target} for the registry {registry}: "
                            f"{_error_text(error)}") from None
    (progress or (lambda _: None))(f"pushing {target}")
    try:
        digest = _push(client, registry, repository, tag)
    except RegistryError:
        _untag(client, target)
        raise
    return replace(image, pinned=f"{repository}@{digest}")


def _push(client: Any, registry: str, repository: str, tag: str) -> str:
    """Push ``repository:tag``; the digest of its manifest (``RegistryError`` otherwise)."""
    target = f"{repository}:{tag}"
    digest = ""
    try:
        events: Iterable[dict[str, Any]] = client.api.push(repository, tag=tag, stream=True,
                                                           decode=True)
        for event in events:
            if event.get("error") or event.get("errorDetail"):
                raise _refusal(registry, "push", target, _event_error(event))
            aux = event.get("aux") or {}
            if isinstance(aux, dict) and DIGEST.fullmatch(str(aux.get("Digest", ""))):
                digest = str(aux["Digest"])
    except _docker_errors() as error:
        raise _refusal(registry, "push", target, _error_text(error)) from None
    if not digest:
        raise RegistryError(f"the registry {registry} took {target} but named no digest for it")
    return digest


def _untag(client: Any, ref: str) -> None:
    """Remove the tag ``ref`` when the image has other tags (so that the image stays)."""
    try:
        if len(client.api.inspect_image(ref).get("RepoTags") or []) > 1:
            client.api.remove_image(ref, noprune=True)
    except _docker_errors():
        pass


_PRESENT: set[tuple[str, str]] = set()
"""Pinned images (ref, recorded id) this process found or pulled and checked: a league worker
starts many containers of one image, and asks Docker only for the first."""


def ensure_local(image: BotImage) -> None:
    """Make sure a pinned image is on this machine, pulled by digest when missing, with the
    image id recorded with it; ``RegistryError`` naming the registry, image and digest when it
    cannot be (checked once per process, until ``forget_present``). An image that is not
    pinned is left alone (a local image)."""
    if not image.pinned or (image.pinned, image.image_id) in _PRESENT:
        return
    pull_pinned(image.pinned, image.image_id)
    _PRESENT.add((image.pinned, image.image_id))


def forget_present(image: BotImage) -> None:
    """Check the pinned image again next time (it is gone from this machine)."""
    _PRESENT.discard((image.pinned, image.image_id))


def pull_pinned(pinned: str, image_id: str = "") -> str:
    """The local id of the pinned image, pulled by digest when this machine lacks it, and
    checked against ``image_id`` when one is given (``RegistryError`` otherwise)."""
    parts = split_pinned(pinned)
    if parts is None:
        raise RegistryError(f"{pinned!r} is not an image pinned by digest "
                            "(REPOSITORY@sha256:HEX)")
    repository, digest = parts
    registry = registry_of(repository)
    client = docker_client()
    with _pull_lock(pinned):
        local = _local_id(client, pinned)
        if local is None:
            _pull(client, registry, repository, digest)
            local = _local_id(client, pinned)
        if local is None:
            raise DigestMismatch(f"the registry {registry} served {repository} for {digest}, "
                                 "but the Docker engine holds no image with that digest")
    if DIGEST.fullmatch(image_id) and local != image_id:
        raise DigestMismatch(f"image {pinned} is {_short(local)} on this machine, not "
                             f"{_short(image_id)} as recorded; refused")
    return local


def _pull(client: Any, registry: str, repository: str, digest: str) -> None:
    """Pull ``repository@digest``, raising ``RegistryError`` with the engine's reason."""
    image = f"{repository}@{digest}"
    try:
        for event in client.api.pull(repository, tag=digest, stream=True, decode=True):
            if event.get("error") or event.get("errorDetail"):
                raise _refusal(registry, "pull", image, _event_error(event))
    except _docker_errors() as error:
        raise _refusal(registry, "pull", image, _error_text(error)) from None


def _local_id(client: Any, ref: str) -> str | None:
    """The id of the local image ``ref``, or None when the engine has none."""
    try:
        return str(client.api.inspect_image(ref)["Id"])
    except Exception as error:
        if getattr(getattr(error, "response", None), "status_code", None) in (400, 404):
            return None
        raise


UNREACHABLE = ("connection refused", "no such host", "i/o timeout", "timeout",
               "network is unreachable", "no route to host", "connection reset",
               "dial tcp", "x509", "tls:")
MISSING = ("manifest unknown", "not found", "name unknown", "does not exist", "unknown blob")
TAMPERED = ("verification failed", "digest mismatch", "did not match", "does not match",
            "invalid checksum")


def _refusal(registry: str, verb: str, image: str, reason: str) -> RegistryError:
    """The one-line error for a failed push or pull of ``image``, by what the engine said."""
    lowered = reason.lower()
    if "http response to https client" in lowered:
        return RegistryUnreachable(f"the registry {registry} speaks plain HTTP, which this Docker "
                                   "engine does not allow for it (list it under "
                                   f"insecure-registries in daemon.json): cannot {verb} {image}")
    if any(word in lowered for word in TAMPERED):
        return DigestMismatch(f"the registry {registry} served {image} with content that does "
                              f"not match its digest ({reason}): refused")
    if any(word in lowered for word in MISSING):
        return ImageNotInRegistry(f"the registry {registry} does not hold {image} "
                                  f"({_cause(reason)}): cannot {verb} it")
    if any(word in lowered for word in UNREACHABLE):
        url = re.search(r"https?://[^\s\"']+", reason)
        where = f" at {url.group(0)}" if url else ""
        return RegistryUnreachable(f"the registry {registry} does not answer{where} "
                                   f"({_cause(reason)}): cannot {verb} {image}")
    if "unauthorized" in lowered or "denied" in lowered or "authentication" in lowered:
        return RegistryError(f"the registry {registry} refused to let this Docker engine {verb} "
                             f"{image} ({reason}); log it in with `docker login {registry}`")
    return RegistryError(f"the registry {registry}: cannot {verb} {image}: {reason}")


def _cause(reason: str) -> str:
    """The last part of a Go error chain (``...: connect: connection refused``)."""
    return reason.rsplit(": ", 1)[-1].strip() or reason


def _event_error(event: dict[str, Any]) -> str:
    """The error message of a push or pull progress event."""
    detail = event.get("errorDetail") or {}
    message = detail.get("message") if isinstance(detail, dict) else None
    return _one_line(str(message or event.get("error") or "unknown error"))


def _error_text(error: BaseException) -> str:
    """A Docker API error's explanation (or message), on one line."""
    return _one_line(str(getattr(error, "explanation", None) or error))


def _one_line(text: str) -> str:
    """``text`` with its whitespace runs made single spaces."""
    return " ".join(text.split()) or "unknown error"


def _short(image_id: str) -> str:
    """``sha256:`` and the first 12 digits of an image id."""
    return image_id[:19]


def _docker_errors() -> tuple[type[BaseException], ...]:
    """The exceptions a Docker call raises when the engine or the registry fails."""
    from docker.errors import DockerException
    from requests.exceptions import RequestException
    return (DockerException, RequestException)


def _pull_lock(pinned: str) -> threading.Lock:
    """One lock per pinned image, so that seats starting at once pull it once."""
    with _pull_locks_guard:
        return _pull_locks.setdefault(pinned, threading.Lock())

