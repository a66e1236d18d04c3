"""A bot whose every text is hostile to terminals, and a real terminal to run commands in.

``write_text_bot`` writes a bot folder (bot.toml, an SDK bot, a Dockerfile) whose Ready name,
debug notes, standard error and, at its third decision, the exception the SDK sends as the
gRPC status of the stream all carry ``HOSTILE`` (with a marker, to find them): an OSC 0 that
sets the window title, an OSC 52 that writes the clipboard, ESC [ 2 J that clears the screen,
a C1 CSI, a bidi override and rich markup. ``run_in_terminal`` runs a command on a
pseudo-terminal and returns every byte the terminal got; ``assert_terminal_safe`` checks them.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

TITLE = "\x1b]0;pwned-title\x07"
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"
CLEAR = "\x1b[2J"
C1_CSI = "\x9b31m"
BIDI = "\u202eevil\u202c"
MARKUP = "[red]x[/red][link=https://evil.example]y[/link]"
HOSTILE = TITLE + CLIPBOARD + CLEAR + C1_CSI + BIDI + MARKUP
"""Everything at once: what the bot writes everywhere it can."""

NAME_TEXT = "hostile" + CLEAR + C1_CSI + "\u202e" + "[bold]b[/bold]"
"""What bot.toml's name holds (no '/', as it names files and images)."""

ESCAPED = ("\\x1b]0;pwned-title", "\\x1b]52;c;cHduZWQ=", "\\x1b[2J", "\\x9b31m",
           "\\u202eevil\\u202c")
"""How ``HOSTILE``'s dangerous parts look once escaped."""

BOT_PY = '''"""Writes hostile text everywhere: Ready name, debug notes, stderr, a gRPC status."""

import sys

from cardarena_sdk import Bot, Request, serve

TEXT = {text!r}
READY = {ready!r}


class HostileBot(Bot):
    """Plays the first legal action; raises at its third decision."""

    name = READY
    version = "1"

    def __init__(self) -> None:
        """No decision yet."""
        self.decisions = 0

    def act(self, request: Request) -> int:
        """Write the text to stderr and the debug notes; the third decision raises it."""
        self.decisions += 1
        sys.stderr.write(TEXT + "\\n")
        sys.stderr.flush()
        request.debug = TEXT
        if self.decisions == {crash_at}:
            raise ValueError(TEXT)
        return request.legal_ids[0]


if __name__ == "__main__":
    serve(HostileBot)
'''

DOCKERFILE = """ARG BASE=cardarena/python-base
FROM ${BASE}
WORKDIR /bot
COPY . /bot
CMD ["python", "bot.py"]
"""


def toml_string(text: str) -> str:
    """A TOML basic string of ``text`` (JSON's escapes of the BMP are TOML's)."""
    return json.dumps(text, ensure_ascii=True)


def write_text_bot(folder: Path, marker: str = "", name: str = NAME_TEXT,
                   crash_at: int = 3, ready: str | None = None) -> Path:
    """Write the hostile bot into ``folder``; its texts are ``HOSTILE`` plus ``marker`` (its
    Ready name too, unless ``ready`` gives one), its bot.toml name ``name``; it raises at
    decision ``crash_at``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(
        f"name = {toml_string(name)}\nversion = \"1\"\nlanguage = \"python\"\n"
        f"command = [\"python\", \"bot.py\"]\ngames = [\"briscola\"]\n", encoding="utf-8")
    text = HOSTILE + marker
    (folder / "bot.py").write_text(BOT_PY.format(text=text, ready=text if ready is None else ready,
                                                 crash_at=crash_at), encoding="utf-8")
    (folder / "Dockerfile").write_text(DOCKERFILE, encoding="utf-8")
    return folder


def arena_command() -> list[str]:
    """How to run ``arena`` from the Python running the tests."""
    return [sys.executable, "-c", "from arena.cli import app; app()"]


def run_in_terminal(args: Sequence[str], *, cwd: Path | None = None,
                    env: Mapping[str, str] | None = None, timeout_s: float = 240.0,
                    columns: int = 200) -> tuple[int, bytes]:
    """Run ``arena ARGS`` with stdin, stdout and stderr on a new pseudo-terminal; its exit code
    and every byte the terminal received."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    environment = {**os.environ, "TERM": "xterm-256color", **(env or {})}
    for name in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CI", "TERM_PROGRAM"):
        if name not in (env or {}):
            environment.pop(name, None)
    process = subprocess.Popen([*arena_command(), *args], stdin=slave, stdout=slave,
                               stderr=slave, cwd=cwd, env=environment, close_fds=True,
                               start_new_session=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            if time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"arena {' '.join(args)} ran over {timeout_s} s; "
                                     f"it printed: {bytes(output)[-2000:]!r}")
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if process.poll() is not None and not _pending(master):
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other side is closed
                break
            if not chunk:
                break
            output += chunk
    finally:
        os.close(master)
    return process.wait(timeout=30), bytes(output)


def _pending(fd: int) -> bool:
    """True when the terminal has bytes to read."""
    ready, _, _ = select.select([fd], [], [], 0)
    return bool(ready)


SGR = re.compile(rb"\x1b\[[0-9;]*m")
"""Select Graphic Rendition: the colours and bold that rich itself writes."""

LIVE = re.compile(rb"\x1b\[\?25[lh]|\x1b\[[0-9]*[AK]|\r(?!\n)")
"""What rich's live displays write besides: cursor hidden and shown, lines up and erased,
returns to the line's start."""

UNSAFE_BYTES = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|"
                          rb"\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")
"""Raw bytes that must never reach the terminal: C0 but tab and newline, DEL, C1 (UTF-8 C2
80..9F), bidi embeddings, overrides and isolates (U+202A..202E, U+2066..2069)."""


def plain_bytes(output: bytes, live: bool = False) -> bytes:
    """The terminal's bytes without rich's colours (and live controls), line ends as LF."""
    plain = SGR.sub(b"", output).replace(b"\r\n", b"\n")
    return LIVE.sub(b"", plain) if live else plain


def assert_terminal_safe(output: bytes, what: str, live: bool = False) -> str:
    """Fail when anything but rich's own colours (and, for a ``live`` display, its cursor
    controls) could drive the terminal: an ESC starting anything else, a C1 control, a bidi
    control, BEL, a lone carriage return, bytes that are not UTF-8...; the shown text."""
    plain = plain_bytes(output, live)
    found = UNSAFE_BYTES.search(plain)
    assert found is None, (f"{what}: the raw byte(s) {found.group()!r} reached the terminal "
                           f"near {plain[max(found.start() - 80, 0):found.end() + 80]!r}")
    try:
        return plain.decode("utf-8")
    except UnicodeDecodeError as error:
        raise AssertionError(f"{what}: bytes that are not UTF-8 reached the terminal "
                             f"near {plain[max(error.start - 80, 0):error.end + 80]!r}") from None


def assert_escaped_shown(shown: str, what: str, parts: Sequence[str] = ESCAPED) -> None:
    """Fail unless each dangerous part shows in its escaped form."""
    missing = [part for part in parts if part not in shown]
    assert not missing, f"{what}: the escaped forms {missing} are not shown in:\n{shown}"
