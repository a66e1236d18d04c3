"""A minimal Debian root with Python, made by ``debootstrap``, pruned of what no bot reads, and
imported as a Docker image."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from arena.sandbox import labels
from arena.sandbox.engine import docker_client
from arena.sandbox.errors import BuildError

SUITE = "bookworm"
PACKAGES = ("python3", "python3-venv", "ca-certificates")
DEFAULT_MIRROR = "http://deb.debian.org/debian"
APT_SOURCES = Path("/etc/apt/sources.list")
APT_SOURCES_DIR = Path("/etc/apt/sources.list.d")
ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ROOT_ENV = (f"PATH={ROOT_PATH}", "ARENA_ENGINE=python")
"""The root's environment, which the base image and every bot image inherit. A bot image
runs the interpreted engine (no compiled build exists under the bot's home), and saying so
spares every start of a bot the search for a build, which hashes the engine's sources twice
(about 20 ms of a cold start); an image that ships a build sets ``ARENA_ENGINE=auto``."""
CHUNK = 1 << 20
PRUNED = ("var/cache/apt", "var/lib/apt/lists",
          "usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale")
"""Folders of the root that no bot reads, emptied before the import: apt's caches and lists
(a bot image is built without network, so apt cannot install anyway), documentation,
manual pages and translations. Python's own files and the wheels that make a venv stay."""
UNUSED_FILES = ("etc/python3*/sitecustomize.py", "usr/lib/python3*/sitecustomize.py")
"""Files of the root removed before the import: Debian's ``sitecustomize``, which every start
of Python runs to look for apport's exception hook (apport is not in the root)."""

ONE_LINE_SOURCE = re.compile(r"^deb\s+(?:\[[^\]]*\]\s+)?(?P<uri>\S+)\s+(?P<suite>\S+)")

Progress = Callable[[str], None]


def apt_mirror(sources: Path = APT_SOURCES, sources_dir: Path = APT_SOURCES_DIR) -> str:
    """The Debian mirror this machine's apt uses for the main archive, or deb.debian.org."""
    candidates: list[str] = []
    if sources.is_file():
        candidates += _one_line_uris(sources.read_text("utf-8", errors="replace"))
    if sources_dir.is_dir():
        for file in sorted(sources_dir.glob("*.list")):
            candidates += _one_line_uris(file.read_text("utf-8", errors="replace"))
        for file in sorted(sources_dir.glob("*.sources")):
            candidates += _deb822_uris(file.read_text("utf-8", errors="replace"))
    for uri in candidates:
        if _is_main_archive(uri):
            return uri.rstrip("/")
    return DEFAULT_MIRROR


def _one_line_uris(text: str) -> list[str]:
    """The URIs of ``deb`` lines in a one-line-style sources file."""
    return [match["uri"] for line in text.splitlines()
            if (match := ONE_LINE_SOURCE.match(line.strip()))]


def _deb822_uris(text: str) -> list[str]:
    """The URIs of enabled ``deb`` stanzas in a deb822 ``.sources`` file."""
    uris = []
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line or line[:1].isspace():
                continue
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        if "deb" in fields.get("types", "").split() and fields.get("enabled", "yes") != "no":
            uris += fields.get("uris", "").split()
    return uris


def _is_main_archive(uri: str) -> bool:
    """True for a Debian archive URI that is not the security or backports archive."""
    path = uri.rstrip("/")
    return (path.startswith(("http://", "https://", "file:/"))
            and path.endswith("/debian") and "security" not in path)


def debootstrap_root(target: Path, mirror: str, progress: Progress) -> None:
    """Run ``debootstrap --variant=minbase`` into ``target``, or raise ``BuildError`` naming why."""
    if shutil.which("debootstrap") is None:
        raise BuildError("debootstrap is not installed: run `apt-get install debootstrap` "
                         "(as root), then build the base image again")
    if os.geteuid() != 0:
        raise BuildError("building the Debian root needs root (debootstrap): run "
                         "`arena images build-base` as root")
    command = ["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}",
               SUITE, str(target), mirror]
    progress(f"debootstrap {SUITE} from {mirror} (about a minute)")
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        lines = (result.stdout + result.stderr).strip().splitlines()
        last = lines[-1] if lines else f"exit status {result.returncode}"
        raise BuildError(f"debootstrap failed: {last}", log="\n".join(lines[-20:]))


def prune_root(root: Path) -> int:
    """Empty the folders of ``PRUNED`` in a root (the folders stay) and remove the
    ``UNUSED_FILES``; the bytes freed."""
    freed = 0
    for pattern in UNUSED_FILES:
        for path in sorted(root.glob(pattern)):
            if path.is_symlink() or path.is_file():
                freed += path.lstat().st_size
                path.unlink()
    for relative in PRUNED:
        folder = root / relative
        if folder.is_symlink() or not folder.is_dir():
            continue
        for entry in folder.iterdir():
            freed += _size(entry)
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    return freed


def _size(path: Path) -> int:
    """The bytes of the files under ``path`` (links not followed)."""
    if path.is_symlink() or not path.is_dir():
        return path.lstat().st_size
    return sum(entry.lstat().st_size for entry in path.rglob("*")
               if entry.is_file() and not entry.is_symlink())


def import_root(root: Path, image: str, progress: Progress) -> str:
    """Import a root folder as a Docker image (``tar -c | docker import``); return its id."""
    progress(f"importing {root} as {image}")
    repository, _, tag = image.rpartition(":")
    tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(root), "-c", "."],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert tar.stdout is not None
    try:
        reply = docker_client().api.import_image(
            src=_chunks(tar.stdout), repository=repository, tag=tag, stream_src=True,
            changes=[*(f"ENV {setting}" for setting in ROOT_ENV), f"LABEL {labels.SANDBOX}=1"])
    finally:
        tar.stdout.close()
        error = tar.stderr.read().decode(errors="replace").strip() if tar.stderr else ""
        status = tar.wait()
    if status != 0:
        raise BuildError(f"tar of {root} failed: {error or f'exit status {status}'}")
    if '"error' in str(reply):
        raise BuildError(f"docker import of {root} failed: {str(reply).strip()[-300:]}")
    return str(docker_client().api.inspect_image(image)["Id"])


def build_root(image: str, *, mirror: str | None = None, progress: Progress) -> str:
    """Make the Debian root in a scratch folder, import it as ``image``; return the image id."""
    scratch = Path(tempfile.mkdtemp(prefix="cardarena-root-", dir="/var/tmp"))
    try:
        root = scratch / "rootfs"
        debootstrap_root(root, mirror or apt_mirror(), progress)
        freed = prune_root(root)
        progress(f"pruned {freed / 2**20:.0f} MiB of apt lists and caches, docs and "
                 "translations")
        return import_root(root, image, progress)
    finally:
        _unmount_below(scratch)
        shutil.rmtree(scratch, ignore_errors=True)


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """Read a binary stream in chunks until it ends."""
    while chunk := stream.read(CHUNK):
        yield chunk


def _unmount_below(folder: Path) -> None:
    """Unmount anything a failed debootstrap left mounted inside ``folder``."""
    prefix = str(folder.resolve()) + "/"
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return
    points = [line.split()[1] for line in mounts if len(line.split()) > 1]
    for point in sorted((p for p in points if p.startswith(prefix)), reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True, check=False)
