"""``arena bot new``: a new bot folder from a language's template, ready to play every game.

The templates live in ``templates/<language>/``; a file ending in ``.tmpl`` has ``$name`` and
``$class_name`` filled in and loses the suffix, other files are copied as they are.
"""

from __future__ import annotations

import re
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Template

LANGUAGES = ("python",)
"""The languages ``arena bot new`` has a template for."""

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
        for item in sorted(template.iterdir(), key=lambda item: item.name):
            if not item.is_file():
                continue
            target = item.name.removesuffix(TEMPLATE_SUFFIX)
            text = item.read_text(encoding="utf-8")
            if item.name.endswith(TEMPLATE_SUFFIX):
                text = Template(text).substitute(values)
            (folder / target).write_text(text, encoding="utf-8")
    except OSError as error:
        raise ScaffoldError(f"cannot write {folder}: {error.strerror or error}") from None
    return folder
