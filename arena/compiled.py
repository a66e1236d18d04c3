"""Load the compiled engine: the modules built by mypyc, when a build of these sources exists.

One build (``arena engine build``) compiles, with mypyc, the modules that each package of
``BUILD_PACKAGES`` names in its ``COMPILED_MODULES`` (the rules engine's, and the bot protocol's
request encoder and answer reader, which run at every decision of a bot and use the engine's
compiled classes). mypyc puts their code in one shared library, so the build is one folder of
the cache, named after a hash of those packages' sources and of the Python version.

On import, each package of the build calls ``use_compiled(__path__, name)``: when the folder of
the current sources' build exists (and ``ARENA_ENGINE`` allows it), its part of the build goes
first on the package's path, so its compiled modules load compiled and the others from source.
A build can never be stale: an edited source changes the hash, and the packages fall back to
the source until it is built again. Compiled and interpreted code are the same code and give
the same games, byte for byte.

``ARENA_ENGINE`` chooses: ``auto`` (the default: compiled when built), ``python`` (never
compiled) or ``compiled`` (fail at import when there is no build).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

ARENA_DIR = Path(__file__).resolve().parent
BUILD_PACKAGES = ("games", "protocol")
"""The packages of ``arena`` in the one build; each names its own ``COMPILED_MODULES``."""
EVERY_MODULE = ("*",)
"""``COMPILED_MODULES`` of a package whose every module but ``__init__`` is compiled."""
ENGINE_VARIABLE = "ARENA_ENGINE"
ENGINE_CHOICES = ("auto", "python", "compiled")
SHARED_LIBRARY_SUFFIX = "__mypyc"
"""mypyc puts the code of all the compiled modules in one shared library, ``<hash>__mypyc``."""


class EngineChoiceError(ImportError):
    """``ARENA_ENGINE`` asks for what cannot be had."""


def package_dir(package: str) -> Path:
    """The folder of ``arena.<package>``."""
    return ARENA_DIR / package


def module_paths(package: str, names: Sequence[str]) -> list[Path]:
    """The source files of a package's compiled modules (``names``, or every module but
    ``__init__`` for ``EVERY_MODULE``), sorted."""
    folder = package_dir(package)
    if tuple(names) == EVERY_MODULE:
        return sorted(path for path in folder.glob("*.py") if path.name != "__init__.py")
    return sorted(folder / f"{name}.py" for name in names)


def source_hash() -> str:
    """A hash of the build packages' sources and of the Python version and platform."""
    import hashlib  # here: OpenSSL's loading is a part of a bot's start, which never hashes

    digest = hashlib.blake2b(digest_size=12)
    digest.update(f"{sys.implementation.cache_tag}:{sys.platform}:{sys.maxsize}".encode())
    for package in BUILD_PACKAGES:
        for path in sorted(package_dir(package).glob("*.py")):
            digest.update(f"{package}/{path.name}".encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_root() -> Path:
    """Where builds are kept: ``$ARENA_ENGINE_CACHE``, or the user's cache folder."""
    configured = os.environ.get("ARENA_ENGINE_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "card-arena" / "engine"


def build_folder(digest: str | None = None) -> Path:
    """The folder of the build of the current sources (it may not exist)."""
    return cache_root() / (digest or source_hash())


def engine_choice() -> str:
    """``ARENA_ENGINE``, checked."""
    choice = os.environ.get(ENGINE_VARIABLE, "auto").strip().lower() or "auto"
    if choice not in ENGINE_CHOICES:
        raise EngineChoiceError(f"{ENGINE_VARIABLE}={choice!r} is not one of "
                                f"{', '.join(ENGINE_CHOICES)}")
    return choice


def is_complete(folder: Path) -> bool:
    """True when ``folder`` holds a finished build (the last file a build writes is there)."""
    return (folder / "COMPLETE").is_file()


@cache
def _digest_at_import() -> str:
    """The sources' hash, taken once per process: both packages of the build are imported
    from the same sources."""
    return source_hash()


def _build_at_import() -> Path | None:
    """The folder of the current sources' build, for a package being imported; None when no
    build can exist because there is no cache folder (a bot's image, say): the sources are
    then not read to hash them, which costs a fresh container tens of milliseconds."""
    if not cache_root().is_dir():
        return None
    return build_folder(_digest_at_import())


def use_compiled(package_path: list[str], package: str) -> str:
    """Put the build's part for ``arena.<package>`` first on the package's path when the
    build exists and is wanted; ``"compiled"`` or ``"python"``, how the package runs."""
    choice = engine_choice()
    if choice == "python":
        return "python"
    folder = _build_at_import()
    if folder is None or not is_complete(folder):
        if choice == "compiled":
            raise EngineChoiceError(f"{ENGINE_VARIABLE}=compiled, but the engine is not built "
                                    "for these sources: run arena engine build")
        return "python"
    part = folder / "arena" / package
    if not part.is_dir():
        return "python"
    _load_shared_library(folder)
    package_path.insert(0, str(part))
    return "compiled"


def _load_shared_library(folder: Path) -> None:
    """Import the build's shared library under its own name, for the compiled modules to find."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for path in sorted(folder.iterdir()):
        name = path.name.split(".", 1)[0]
        if name.endswith(SHARED_LIBRARY_SUFFIX) and path.name.endswith(suffixes):
            if name in sys.modules:
                return
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise EngineChoiceError(f"cannot load the compiled engine's library {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            return
