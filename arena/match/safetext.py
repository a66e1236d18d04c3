"""Text a bot or an uploader wrote, made safe to show: control and format characters escaped.

Bots write text the arena shows: a Ready name, debug notes, standard error, the text of a gRPC
status, the fields of bot.toml; errors quote them. Printed raw, such text could drive the
terminal (set its title, write the clipboard with OSC 52, clear the screen) or disguise itself
(bidi overrides, invisible characters). ``safe_text`` shows every such character escaped, as
Python writes it: ``\\x1b``, ``\\x9b``, ``\\u202e``, ``\\U000e0041``. It escapes

- the C0 controls, DEL and the C1 controls (Unicode category Cc), but newline and tab where a
  multi-line log is shown (``multiline=True``);
- format characters (Cf): bidi embeddings, overrides and isolates, marks, zero-width
  characters, the byte order mark, tag characters;
- line and paragraph separators (Zl, Zp), lone surrogates (Cs), and the Hangul fillers that
  draw as blank letters.

``safe_json`` does the same for JSON text with ``\\u`` escapes, so the JSON still decodes to
the very same strings; ``SafeFormatter`` for log records.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import unicodedata
import warnings
from functools import lru_cache
from typing import Any, TextIO

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Unicode categories always shown escaped."""

BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")
"""Letters that draw as nothing (Hangul fillers), used to disguise names."""

NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
"""Controls shown by their usual short escape."""

_SUSPECT = re.compile(r"[^\x20-\x7e]")
"""Anything but printable ASCII: the characters worth a closer look."""


def unsafe(char: str) -> bool:
    """True for a character that is shown escaped (newline and tab included)."""
    return unicodedata.category(char) in UNSAFE_CATEGORIES or char in BLANK_LETTERS


def escaped(char: str) -> str:
    """A character as Python escapes it in a string literal: ``\\x1b``, ``\\u202e``..."""
    if char in NAMED:
        return NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


@lru_cache(maxsize=4096)
def _shown(char: str, multiline: bool) -> str:
    """How one character is shown."""
    if multiline and char in "\n\t":
        return char
    return escaped(char) if unsafe(char) else char


def safe_text(text: object, *, multiline: bool = False) -> str:
    """The text with every control and format character escaped (newlines and tabs kept when
    ``multiline``); anything else is made text with ``str`` first."""
    text = str(text)
    return _SUSPECT.sub(lambda found: _shown(found.group(), multiline), text)


def safe_lines(text: str) -> list[str]:
    """A multi-line log as safe lines (carriage returns and other controls escaped)."""
    return safe_text(text, multiline=True).split("\n")


@lru_cache(maxsize=4096)
def _json_shown(char: str) -> str:
    """How one character is written in JSON text (outside strings there is only ASCII)."""
    if char in "\n\t" or not unsafe(char):
        return char
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def safe_json(text: str) -> str:
    """JSON text with every unsafe character inside its strings written as a ``\\u`` escape:
    the same JSON value, safe to print."""
    return _SUSPECT.sub(lambda found: _json_shown(found.group()), text)


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps`` (non-ASCII letters kept as they are), safe to print."""
    options.setdefault("ensure_ascii", False)
    return safe_json(json.dumps(value, **options))


class SafeFormatter(logging.Formatter):
    """Formats log records as another formatter does (by default: the message alone), then
    makes the lines, tracebacks included, safe to print."""

    def __init__(self, inner: logging.Formatter | None = None) -> None:
        """Format with ``inner``."""
        super().__init__()
        self.inner = inner or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        """The formatted record, control and format characters escaped."""
        return safe_text(self.inner.format(record), multiline=True)


def show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: TextIO | None = None, line: str | None = None) -> None:
    """Print a warning as ``warnings`` does, made safe to print."""
    text = warnings.formatwarning(message, category, filename, lineno, line)
    with contextlib.suppress(OSError):
        (file or sys.stderr).write(safe_text(text, multiline=True))


def safe_logging(logger: logging.Logger | None = None) -> None:
    """Make log output safe to print: the formatters of the logger's handlers (the root
    logger's by default), and of Python's handler of last resort (what prints when no handler
    is set up), are wrapped in ``SafeFormatter``; so are warnings (a library's may quote a
    bot's name)."""
    warnings.showwarning = show_warning
    handlers = [*(logger or logging.getLogger()).handlers, logging.lastResort]
    for handler in handlers:
        if handler is not None and not isinstance(handler.formatter, SafeFormatter):
            handler.setFormatter(SafeFormatter(handler.formatter))
