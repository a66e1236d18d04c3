"""Wheels for the base image: the engine, the SDK and their dependencies, fetched on the host.

A bot needs the engine distribution (``card-arena-engine``: games, policies, protocol) and the
SDK, never the platform (``card-arena``). The two local projects are built from the source
checkout the running ``arena`` package comes from; their dependencies are downloaded as binary
wheels for the base image's platform (CPython 3.11 on manylinux x86_64, the Python of Debian
bookworm). Everything lands in a cache folder, so a second run needs no network when nothing
changed. A variant of the base image (``arena.sandbox.bases``) gets its extra wheels the same way
(``download_wheels``).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import arena
from arena.sandbox.errors import BuildError

PROJECT_NAME = "card-arena"
ENGINE_FOLDER = Path("engine")
"""The engine distribution's project; its ``pyproject.toml`` takes its packages from ``arena``."""
ENGINE_SOURCES = (Path("arena"), Path("proto"))
"""The folders the engine's files come from (``arena/protocol/agent.proto`` links to ``proto``)."""
SDK_FOLDER = Path("sdk") / "python"
WIRE_FOLDER = Path("wire")
"""The compiled transport (Rust, built by maturin with cargo): bots in the image serve through
it when its wheel is there, and through grpc.aio otherwise."""
WIRE_PACKAGE = "cardarena-wire"
PYTHON_VERSION = "3.11"
"""The Python of the base image (Debian bookworm's ``python3``)."""

PLATFORMS = (
    *(f"manylinux_2_{minor}_x86_64" for minor in range(36, 16, -1)),
    "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64",
)
"""Wheel platforms that run on Debian bookworm (glibc 2.36) on x86_64."""

FIXED_EPOCH = "315532800"
"""``SOURCE_DATE_EPOCH`` for the local wheels, so unchanged sources give identical bytes."""

SKIPPED = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info",
                                 "__pycache__", ".*_cache", "node_modules", "target")
"""What is left out when the sources are copied to build a wheel."""

SAVED_LINE = re.compile(r"^(?:Saved|File was already downloaded) (?P<path>\S+\.whl)\s*$")

Progress = Callable[[str], None]


def wheel_cache() -> Path:
    """The folder of downloaded and built wheels (in ``$XDG_CACHE_HOME`` or ``~/.cache``)."""
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "cardarena" / "wheels"


def project_root() -> Path:
    """The source checkout of card-arena, found from where the ``arena`` package lives."""
    candidate = Path(arena.__file__).resolve().parent.parent
    pyproject = candidate / "pyproject.toml"
    if (pyproject.is_file() and f'name = "{PROJECT_NAME}"' in pyproject.read_text("utf-8")
            and (candidate / ENGINE_FOLDER / "pyproject.toml").is_file()
            and (candidate / SDK_FOLDER / "pyproject.toml").is_file()):
        return candidate
    raise BuildError(f"the base image needs the card-arena sources, but arena is installed from "
                     f"a wheel at {candidate}; install it from a checkout (pip install "
                     f"-e PATH/engine -e PATH) or pass the checkout with --project PATH")


def collect_wheels(dest: Path, *, project: Path | None = None,
                   progress: Progress) -> list[Path]:
    """Put every wheel the base image installs into ``dest``; return their paths, sorted."""
    source = project or project_root()
    cache = wheel_cache()
    cache.mkdir(parents=True, exist_ok=True)
    local = [_build_local_wheel(source, ENGINE_FOLDER, cache, progress,
                                alongside=ENGINE_SOURCES),
             _build_local_wheel(source, SDK_FOLDER, cache, progress)]
    needed = _download([str(wheel) for wheel in local], cache, progress)
    return _copy_wheels({*local, *needed, *_compiled_wheels(source, cache, progress)}, dest)


def _compiled_wheels(root: Path, cache: Path, progress: Progress) -> list[Path]:
    """The compiled transport's wheel (no dependencies of its own), or none without cargo."""
    if not (root / WIRE_FOLDER / "Cargo.toml").is_file():
        return []
    if shutil.which("cargo") is None:
        progress("cargo is not installed: the image's bots will serve through grpc.aio")
        return []
    return [_build_local_wheel(root, WIRE_FOLDER, cache, progress, backend="maturin")]


def download_wheels(requirements: Sequence[str], dest: Path, *,
                    progress: Progress) -> list[Path]:
    """Put binary wheels of ``requirements`` and their dependencies, for the base image's
    platform, into ``dest`` (through the cache); return their paths, sorted."""
    cache = wheel_cache()
    cache.mkdir(parents=True, exist_ok=True)
    return _copy_wheels(set(_download(list(requirements), cache, progress)), dest)


def _copy_wheels(wheels: set[Path], dest: Path) -> list[Path]:
    """Copy wheels into ``dest``; return the copies' paths, sorted."""
    dest.mkdir(parents=True, exist_ok=True)
    copied = []
    for wheel in sorted(wheels, key=lambda path: path.name):
        target = dest / wheel.name
        shutil.copyfile(wheel, target)
        copied.append(target)
    return copied


def build_local_wheel(root: Path, folder: Path, out: Path, *,
                      alongside: tuple[Path, ...] = (), backend: str = "setuptools") -> Path:
    """Build the wheel of the project ``root/folder`` into ``out``, from a clean copy of it and
    of the ``alongside`` folders its sources come from (kept at the same places relative to it);
    with the installed build ``backend`` when there is one, else in pip's isolated build
    environment.
    """
    source = root / folder
    with tempfile.TemporaryDirectory(prefix="cardarena-src-") as scratch:
        tree = Path(scratch) / "src"
        for part in (folder, *alongside):
            shutil.copytree(root / part, tree / part, ignore=SKIPPED, symlinks=True)
        copy = tree / folder
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                   "--wheel-dir", str(out), str(copy)]
        if importlib.util.find_spec(backend) is not None:
            command.insert(5, "--no-build-isolation")
        _run(command, f"building the wheel of {source}")
    built = sorted(out.glob("*.whl"))
    if len(built) != 1:
        raise BuildError(f"building the wheel of {source} gave {len(built)} wheels, not one")
    return built[0]


def _build_local_wheel(root: Path, folder: Path, cache: Path, progress: Progress, *,
                       alongside: tuple[Path, ...] = (), backend: str = "setuptools") -> Path:
    """Build one local project's wheel and put it into the cache."""
    progress(f"building the wheel of {root / folder}")
    with tempfile.TemporaryDirectory(prefix="cardarena-wheel-") as scratch:
        built = build_local_wheel(root, folder, Path(scratch), alongside=alongside,
                                  backend=backend)
        target = cache / built.name
        shutil.copyfile(built, target)
        return target


def _download(requirements: list[str], cache: Path, progress: Progress) -> list[Path]:
    """Fetch wheels of the requirements (local wheels or specifiers) and their dependencies
    for the image's platform (cache first)."""
    options = ["--only-binary=:all:", "--python-version", PYTHON_VERSION,
               "--implementation", "cp", "--dest", str(cache), "--find-links", str(cache)]
    for platform in PLATFORMS:
        options += ["--platform", platform]
    command = [sys.executable, "-m", "pip", "download", "--progress-bar", "off", *options,
               *requirements]
    offline = _run([*command, "--no-index"], "", check=False)
    if offline.returncode == 0:
        progress("dependency wheels: all found in the cache")
        output = offline.stdout
    else:
        progress(f"downloading dependency wheels into {cache}")
        output = _run(command, "downloading the dependency wheels").stdout
    saved = [Path(match["path"]) for line in output.splitlines()
             if (match := SAVED_LINE.match(line.strip()))]
    return [cache / path.name for path in saved]


def _run(command: list[str], what: str, *, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a pip command with a fixed source date; raise ``BuildError`` on failure if asked."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": FIXED_EPOCH, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.setdefault("CARGO_TARGET_DIR", str(wheel_cache().parent / "cargo-target"))
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if check and result.returncode != 0:
        log = (result.stdout + result.stderr).strip()
        last = log.splitlines()[-1] if log else f"exit status {result.returncode}"
        raise BuildError(f"{what} failed: {last}", log="\n".join(log.splitlines()[-20:]))
    return result
