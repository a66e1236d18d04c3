"""The folders of a bot's image that its containers read from the host, read-only, instead of
through the storage driver.

With Docker's ``fuse-overlayfs`` driver every container reads its image through a FUSE daemon of
its own, into a page cache of its own: a bot's start reads the interpreter, the standard library
and grpc afresh, and each kept container holds its own copy of those pages. A folder of the image
that exactly one of its layers holds, and that no other layer touches (no file under it, no
whiteout of it or of a folder above it, no opaque folder on its way), reads the same from that
layer's folder on the host, whose page cache every container shares. For a bot built on the
base image those are ``/usr/lib``, ``/usr/bin`` and ``/opt/venv``, mounted read-only from the base
image's layers (not all of ``/usr``: Docker mounts its init at ``/sbin/docker-init``, which is in
``/usr/sbin`` in a merged-``/usr`` root); a bot whose own layers change one of them (a ``pip
install`` into the venv, say) reads that one through the driver as before.

Only a base image's layers are served (a bot's own layers never are), only for the local
engine's ``fuse-overlayfs`` driver (kernel overlayfs shares the page cache
already), only when the arena can read the layers' folders, and never when
``CARDARENA_SHARED_LAYERS=off``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

FOLDERS = ("usr/lib", "usr/bin", "opt/venv")
"""The image folders that may be served from a layer on the host."""

DRIVERS = frozenset({"fuse-overlayfs"})
"""Storage drivers whose containers each read their image through a page cache of their own."""

SWITCH_ENV = "CARDARENA_SHARED_LAYERS"
"""``off`` reads every folder through the storage driver."""

OPAQUE_MARK = ".wh..wh..opq"
WHITEOUT_PREFIX = ".wh."
OPAQUE_XATTRS = ("trusted.overlay.opaque", "user.overlay.opaque", "user.fuseoverlayfs.opaque")


def enabled() -> bool:
    """False when ``CARDARENA_SHARED_LAYERS=off``."""
    return os.environ.get(SWITCH_ENV, "").strip().lower() != "off"


def layer_folders(image: dict[str, Any]) -> list[Path]:
    """The folders of an inspected image's layers, top first; none for another driver."""
    driver = image.get("GraphDriver") or {}
    if driver.get("Name") not in DRIVERS:
        return []
    data = driver.get("Data") or {}
    folders = [data.get("UpperDir") or "", *str(data.get("LowerDir") or "").split(":")]
    return [Path(folder) for folder in folders if folder]


def shared_folders(layers: Sequence[Path], trusted: Collection[Path]) -> list[tuple[Path, str]]:
    """``(host folder, image folder)`` for each of ``FOLDERS`` that one layer alone holds, when
    that layer is one of the ``trusted`` (a base image's, built by the arena)."""
    found = []
    for folder in FOLDERS:
        owners = [layer for layer in layers if _holds(layer, folder)]
        if len(owners) != 1 or owners[0] not in trusted:
            continue
        owner = owners[0]
        if any(_touches(layer, folder) for layer in layers if layer != owner):
            continue
        found.append((owner / folder, "/" + folder))
    return found


def _holds(layer: Path, folder: str) -> bool:
    """True when ``layer`` has ``folder`` as a real folder, through real folders."""
    path = layer
    for part in folder.split("/"):
        path = path / part
        if not _is_folder(path):
            return False
    return True


def _touches(layer: Path, folder: str) -> bool:
    """True when ``layer`` has anything that could change what the image shows at ``folder``:
    the folder itself, a whiteout or a non-folder on its way, or an opaque folder on its way."""
    path = layer
    if _opaque(path):
        return True
    for part in folder.split("/"):
        if (path / f"{WHITEOUT_PREFIX}{part}").exists() or (path / OPAQUE_MARK).exists():
            return True
        path = path / part
        if not os.path.lexists(path):
            return False
        if not _is_folder(path) or _opaque(path):
            return True
    return True  # the folder itself is in this layer


def _is_folder(path: Path) -> bool:
    """True for a folder that is not a link."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _opaque(path: Path) -> bool:
    """True when a folder is marked opaque (it hides the layers below it)."""
    for name in OPAQUE_XATTRS:
        try:
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False


def shared_mounts(image_id: str) -> tuple[dict[str, Any], ...]:
    """Read-only bind mounts for a container of ``image_id``: its folders read from the host
    (none when the switch is off, the driver shares its page cache, or the layers are not
    readable here); inspected once per image and process, again when a layer's folder is gone
    (the image was removed and pulled again)."""
    if not enabled():
        return ()
    mounts = _mounts_of(image_id)
    if not all(os.path.isdir(mount["Source"]) for mount in mounts):
        _mounts_of.cache_clear()
        mounts = _mounts_of(image_id)
    return mounts


@lru_cache(maxsize=256)
def _mounts_of(image_id: str) -> tuple[dict[str, Any], ...]:
    """``shared_mounts``, asked of Docker."""
    from arena.sandbox.engine import docker_client
    client = docker_client()
    try:
        image = client.api.inspect_image(image_id)
    except Exception:
        return ()
    layers = layer_folders(image)
    if not layers or not all(os.access(layer, os.R_OK | os.X_OK) for layer in layers):
        return ()
    return tuple({"Target": target, "Source": str(source), "Type": "bind", "ReadOnly": True}
                 for source, target in shared_folders(layers, base_layers(client)))


def base_layers(client: Any) -> set[Path]:
    """The layers of the base images on this machine (``arena images build-base``): the only
    ones whose folders are served, so what the host serves is always what the arena built."""
    from arena.sandbox.bases import VARIANTS
    found: set[Path] = set()
    for variant in VARIANTS.values():
        try:
            found.update(layer_folders(client.api.inspect_image(variant.tag)))
        except Exception:
            continue
    return found
