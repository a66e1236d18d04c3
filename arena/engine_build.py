"""``arena engine build``: compile the rules engine with mypyc into its cache folder.

The packages of the build (``arena.compiled.BUILD_PACKAGES``) are copied to a temporary folder
and the modules each names (its ``COMPILED_MODULES``, passed in by the caller) are compiled
there with ``python -m mypyc`` (from the ``engine`` extra: ``pip install 'card-arena[engine]'``,
with a C compiler and Python's headers); the shared library and the modules' extensions then
move into the cache folder named after the sources' hash (``arena.compiled``), ``COMPLETE``
last. Builds of other sources stay in the cache until ``--clean``.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.compiled import (
    BUILD_PACKAGES,
    build_folder,
    cache_root,
    is_complete,
    module_paths,
    package_dir,
    source_hash,
)

Progress = Callable[[str], None]

BUILD_TIMEOUT_S = 1800.0
"""The longest a build may take (about 2 minutes on two cores)."""

LOG_LINES = 8
"""Lines of the compiler's output shown when a build fails."""


class EngineBuildError(RuntimeError):
    """The engine could not be built; the message says why in one line."""


@dataclass(frozen=True)
class BuildResult:
    """A build: its folder, whether it was made now, and how long that took."""

    folder: Path
    built: bool
    seconds: float = 0.0


def missing_tools() -> list[str]:
    """What a build needs and this machine lacks, each with how to get it."""
    missing = []
    if importlib.util.find_spec("mypyc") is None:
        missing.append("mypyc (pip install 'card-arena[engine]')")
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        missing.append(f"a C compiler, {compiler} (apt-get install gcc)")
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():
        missing.append(f"Python's headers, {headers} (apt-get install python3-dev)")
    return missing


def build_engine(compiled: Mapping[str, Sequence[str]], force: bool = False,
                 progress: Progress | None = None) -> BuildResult:
    """Build the compiled engine for the current sources, unless it is built already;
    ``compiled`` gives each build package's ``COMPILED_MODULES``."""
    if sorted(compiled) != sorted(BUILD_PACKAGES):
        raise EngineBuildError("the build needs the compiled modules of "
                               f"{', '.join(BUILD_PACKAGES)}, not of "
                               f"{', '.join(compiled) or 'nothing'}")
    say = progress or (lambda text: None)
    folder = build_folder()
    if is_complete(folder) and not force:
        return BuildResult(folder, built=False)
    missing = missing_tools()
    if missing:
        raise EngineBuildError("cannot build the engine: missing " + "; ".join(missing))
    cache_root().mkdir(parents=True, exist_ok=True)
    with (cache_root() / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_complete(folder) and not force:
            return BuildResult(folder, built=False)
        return _build(folder, compiled, say)


def _build(folder: Path, compiled: Mapping[str, Sequence[str]], say: Progress) -> BuildResult:
    """Compile into a temporary folder, then move the result to ``folder``."""
    started = time.perf_counter()
    digest = source_hash()
    with tempfile.TemporaryDirectory(prefix="arena-engine-", dir=cache_root()) as temp:
        work = Path(temp)
        (work / "arena").mkdir()
        (work / "arena" / "__init__.py").write_text('"""Card Arena (engine build)."""\n')
        sources = {package: module_paths(package, compiled[package])
                   for package in BUILD_PACKAGES}
        for package in BUILD_PACKAGES:
            # The whole package: its other modules are type-checked, not compiled.
            shutil.copytree(package_dir(package), work / "arena" / package,
                            ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
        modules = [str(Path("arena", package, path.name))
                   for package, paths in sources.items() for path in paths]
        say(f"compiling {len(modules)} modules with mypyc")
        _compile(work, modules)
        staging = work / "staging"
        staging.mkdir()
        for library in work.glob("*__mypyc*"):
            if library.is_file():
                shutil.move(library, staging / library.name)
        for package, paths in sources.items():
            part = staging / "arena" / package
            part.mkdir(parents=True)
            for path in paths:
                for extension in (work / "arena" / package).glob(path.stem + ".*"):
                    if extension.suffix in (".so", ".pyd"):
                        shutil.move(extension, part / extension.name)
        (staging / "SOURCE_HASH").write_text(digest + "\n")
        (staging / "COMPLETE").write_text("")
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(staging, folder)
    return BuildResult(folder, built=True, seconds=time.perf_counter() - started)


def _compile(work: Path, modules: list[str]) -> None:
    """Run mypyc on ``modules`` in ``work``; ``EngineBuildError`` with its last lines on failure."""
    command = [sys.executable, "-m", "mypyc", *modules]
    try:
        done = subprocess.run(command, cwd=work, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise EngineBuildError(f"the engine build took over {BUILD_TIMEOUT_S:g} s") from None
    if done.returncode != 0:
        lines = (done.stdout + done.stderr).strip().splitlines()[-LOG_LINES:]
        raise EngineBuildError(f"mypyc failed (exit {done.returncode}): " + " | ".join(lines))


def clean_cache(keep_current: bool = True) -> list[Path]:
    """Remove the builds of other sources (and this one unless ``keep_current``); the removed."""
    root = cache_root()
    if not root.is_dir():
        return []
    current = build_folder()
    removed = []
    for folder in root.iterdir():
        if folder.is_dir() and not (keep_current and folder == current):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
