"""``arena bot new``: a new bot folder from a language's template, ready to play every game.

The templates live in ``templates/<language>/``; a file ending in ``.tmpl`` has ``$name`` and
``$class_name`` filled in and loses the suffix, other files are copied as they are. Bots in
compiled languages get a copy of ``agent.proto`` to generate their protocol code from.
"""

from __future__ import annotations

import re
import shutil
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Template

LANGUAGES = ("python", "rust", "cpp", "go")
"""The languages ``arena bot new`` has a template for."""

NEEDS_PROTO = frozenset({"rust", "cpp", "go"})
"""Languages whose bots compile the protocol themselves: the new folder gets ``agent.proto``."""

TOOLCHAINS: dict[str, tuple[tuple[str, str], ...]] = {
    "rust": (("cargo", "install Rust with rustup (https://rustup.rs)"),
             ("protoc", "apt-get install protobuf-compiler")),
    "cpp": (("g++", "apt-get install g++"), ("pkg-config", "apt-get install pkg-config"),
            ("protoc", "apt-get install protobuf-compiler"),
            ("grpc_cpp_plugin", "apt-get install protobuf-compiler-grpc libgrpc++-dev")),
    "go": (("go", "apt-get install golang-go"),
           ("protoc", "apt-get install protobuf-compiler"),
           ("protoc-gen-go", "apt-get install protoc-gen-go golang-google-protobuf-dev "
                             "golang-github-golang-protobuf-1-5-dev"),
           ("protoc-gen-go-grpc", "apt-get install protoc-gen-go-grpc golang-google-grpc-dev")),
}
"""Programs a language's build needs, each with how to get it."""

PROTO_PATH = Path("proto/cardarena/v1/agent.proto")
"""Where a new bot folder keeps its copy of the protocol."""

TEMPLATE_SUFFIX = ".tmpl"

NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")


class ScaffoldError(ValueError):
    """A scaffold that cannot be written: a bad name or language, or a folder in the way."""


def class_name(name: str) -> str:
    """``my-bot`` -> ``MyBot``; ``briscola_ace`` -> ``BriscolaAceBot``."""
    words = [word for word in re.split(r"[-_]", name) if word]
    base = "".join(word[:1].upper() + word[1:] for word in words)
    return base if base.endswith("Bot") else base + "Bot"


def _template(language: str) -> Traversable:
    """The template folder of a language, or a ScaffoldError naming the supported ones."""
    if language not in LANGUAGES:
        raise ScaffoldError(f"unknown language {language!r}; supported languages: "
                            f"{', '.join(LANGUAGES)}")
    return resources.files("arena.botkit") / "templates" / language


def _target(name: str, parent: Path) -> Path:
    """The new bot's folder: it must not exist, or be empty."""
    if not NAME_PATTERN.fullmatch(name):
        raise ScaffoldError(f"bad bot name {name!r}: use a letter, then letters, digits, '-' "
                            "or '_' (at most 64 characters)")
    folder = parent / name
    if folder.exists() and not folder.is_dir():
        raise ScaffoldError(f"{folder} exists and is not a folder")
    if folder.is_dir() and any(folder.iterdir()):
        raise ScaffoldError(f"{folder} exists and is not empty; choose another name or "
                            "--dir, nothing was written")
    return folder


def scaffold_bot(name: str, language: str = "python", parent: Path | None = None) -> Path:
    """Write the folder ``parent/name`` (default: in the current folder) from the template."""
    template = _template(language)
    folder = _target(name, Path.cwd() if parent is None else parent)
    values = {"name": name, "class_name": class_name(name)}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _copy_tree(template, folder, values)
        if language in NEEDS_PROTO:
            proto = folder / PROTO_PATH
            proto.parent.mkdir(parents=True, exist_ok=True)
            proto.write_text(agent_proto_text(), encoding="utf-8")
    except OSError as error:
        raise ScaffoldError(f"cannot write {folder}: {error.strerror or error}") from None
    return folder


def agent_proto_text() -> str:
    """The protocol's ``agent.proto``, as shipped with the arena package."""
    return (resources.files("arena.protocol") / "agent.proto").read_text(encoding="utf-8")


def _copy_tree(source: Traversable, target: Path, values: dict[str, str]) -> None:
    """Copy a template folder; ``.tmpl`` files are filled in and lose the suffix."""
    for item in sorted(source.iterdir(), key=lambda item: item.name):
        if item.name == "__pycache__":
            continue
        if item.is_dir():
            (target / item.name).mkdir(exist_ok=True)
            _copy_tree(item, target / item.name, values)
            continue
        text = item.read_text(encoding="utf-8")
        if item.name.endswith(TEMPLATE_SUFFIX):
            text = Template(text).substitute(values)
        (target / item.name.removesuffix(TEMPLATE_SUFFIX)).write_text(text, encoding="utf-8")


def missing_toolchain(language: str) -> list[str]:
    """One line per program the language's build needs and this machine lacks."""
    return [f"{program} is not installed, and building a {language} bot needs it: {how}"
            for program, how in TOOLCHAINS.get(language, ()) if shutil.which(program) is None]
