"""Image references: a pinned one (``REPOSITORY@sha256:HEX``), its repository and registry.

Plain string work, shared by the images and the registry modules; nothing here talks to Docker.
"""

from __future__ import annotations

import re

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
"""A manifest (or image id) digest."""

DOCKER_HUB = "docker.io"
"""The registry of a repository whose name does not start with a host."""


def split_pinned(ref: str) -> tuple[str, str] | None:
    """``(repository, digest)`` of a pinned reference ``REPOSITORY@sha256:HEX``, else None."""
    repository, at, digest = ref.rpartition("@")
    if not at or not repository or not DIGEST.fullmatch(digest):
        return None
    return repository, digest


def is_pinned(ref: str | None) -> bool:
    """True when ``ref`` names an image by digest (``REPOSITORY@sha256:HEX``)."""
    return ref is not None and split_pinned(ref) is not None


def registry_of(repository: str) -> str:
    """The registry a repository lives in (its first part when that is a host, else Docker
    Hub)."""
    first, slash, _ = repository.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        return first
    return DOCKER_HUB


def repository_of(ref: str) -> str:
    """A reference's repository: its digest or tag left out (a port's colon kept)."""
    pinned = split_pinned(ref)
    if pinned is not None:
        return pinned[0]
    name, colon, tag = ref.rpartition(":")
    return name if colon and "/" not in tag else ref
