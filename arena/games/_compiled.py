"""Load the compiled engine: the game modules built by mypyc, when a build of these sources exists.

``arena engine build`` compiles the modules of ``arena.games`` (all but this one and the package's
``__init__``) with mypyc into a cache folder named after a hash of their sources and of the
Python version. On import, ``arena.games`` puts that folder first on its ``__path__`` when it
exists, so its submodules load compiled; otherwise they load from source. A build can therefore
never be stale: an edited source changes the hash, and the engine falls back to the source until
it is built again. The compiled and the interpreted engine run the same code and give the same
games, byte for byte.

The same build also compiles the hot modules of the bot protocol's request encoder
(``PROTOCOL_MODULES`` of ``arena.protocol``: the arena runs them at every decision of a bot);
``arena.protocol`` puts them first on its path when the engine runs compiled
(``use_compiled_protocol``). The games import nothing of the protocol: only this loader knows
that the build holds both.

``ARENA_ENGINE`` chooses: ``auto`` (the default: compiled when built), ``python`` (never
compiled) or ``compiled`` (fail at import when there is no build).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
NOT_COMPILED = ("__init__.py", "_compiled.py")
"""The modules of the package that always run from source."""
PROTOCOL_DIR = PACKAGE_DIR.parent / "protocol"
PROTOCOL_MODULES = ("encoder.py", "fieldcache.py", "keys.py", "replies.py", "serialize.py",
                    "wire.py")
"""The modules of ``arena.protocol`` compiled with the engine: the request encoder and the
reader of answers, which run at every decision."""
ENGINE_VARIABLE = "ARENA_ENGINE"
ENGINE_CHOICES = ("auto", "python", "compiled")
SHARED_LIBRARY_SUFFIX = "__mypyc"
"""mypyc puts the code of all the compiled modules in one shared library, ``<hash>__mypyc``."""


_loaded_build: Path | None = None
"""The build folder the engine was loaded from, once it is."""


class EngineChoiceError(ImportError):
    """``ARENA_ENGINE`` asks for what cannot be had."""


def compiled_sources() -> list[Path]:
    """The game modules that the compiled engine is built from, sorted."""
    return sorted(path for path in PACKAGE_DIR.glob("*.py") if path.name not in NOT_COMPILED)


def compiled_protocol_sources() -> list[Path]:
    """The protocol modules built with the engine, sorted."""
    return [PROTOCOL_DIR / name for name in PROTOCOL_MODULES]


def source_hash() -> str:
    """A hash of the compiled modules' sources and of the Python version and platform."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(f"{sys.implementation.cache_tag}:{sys.platform}:{sys.maxsize}".encode())
    for path in compiled_sources():
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for path in compiled_protocol_sources():
        digest.update(b"protocol/" + path.name.encode() + b"\0" + path.read_bytes() + b"\0")
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


def use_compiled_engine(package_path: list[str]) -> str:
    """Put the compiled build first on the package's path when it exists and is wanted;
    ``"compiled"`` or ``"python"``, the engine that will run."""
    choice = engine_choice()
    if choice == "python":
        return "python"
    folder = build_folder()
    if not is_complete(folder):
        if choice == "compiled":
            raise EngineChoiceError(f"{ENGINE_VARIABLE}=compiled, but the engine is not built "
                                    "for these sources: run arena engine build")
        return "python"
    global _loaded_build
    _load_shared_library(folder)
    package_path.insert(0, str(folder / "arena" / "games"))
    _loaded_build = folder
    return "compiled"


def use_compiled_protocol(package_path: list[str]) -> str:
    """Put the build's protocol modules first on ``arena.protocol``'s path when the engine
    runs compiled (they use its compiled classes); ``"compiled"`` or ``"python"``."""
    folder = _loaded_build
    if folder is None or not (folder / "arena" / "protocol").is_dir():
        return "python"
    package_path.insert(0, str(folder / "arena" / "protocol"))
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
