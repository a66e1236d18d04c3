"""The command line's exit codes, its bad-input error and the one-line reports of errors."""

from __future__ import annotations

import typer
from rich.text import Text

from arena.cli.console import safe_console
from arena.match.safetext import safe_text
from arena.sandbox.errors import BuildError, SandboxError

USAGE_ERROR = 2
"""The exit code of bad input."""

SEAT_FAULT = 1
"""The exit code of a match played to its end in which a seat did not end OK (or a void one)."""


class CliError(typer.TyperException):
    """Bad input found by the command line itself."""

    exit_code = USAGE_ERROR


def error_line(message: str) -> str:
    """The one line that reports bad input (what it quotes of a bot shown escaped)."""
    return "error: " + safe_text(" ".join(message.split()))


BUILD_LOG_LINES = 30
"""Lines of a failed build's log shown under its error line."""


def report_sandbox_error(error: SandboxError) -> int:
    """Print a sandbox error as one red line (a failed build: then its log's last lines); the
    exit code: 1 for a failed build, 2 when Docker, the image or a limit is missing."""
    console = safe_console(stderr=True, soft_wrap=True)
    console.print(Text("error: ", style="red").append(safe_text(" ".join(str(error).split()))))
    if not isinstance(error, BuildError):
        return USAGE_ERROR
    lines = error.log.rstrip().splitlines()[-BUILD_LOG_LINES:]
    for line in lines:
        console.print(Text("  " + safe_text(line), style="dim"))
    return SEAT_FAULT

