"""Dockerfiles read as Docker's builder reads them, and written back one instruction a line.

The parser is moby/buildkit's own ``frontend/dockerfile/parser`` (Go, through the ``dockerfile``
package): line continuations with blank or comment lines inside, the ``escape`` directive,
heredocs, JSON forms and flags come out as the builder sees them. A Dockerfile that is built is
never the file as written but ``render``'s copy of what was read: no comment, blank line,
continuation, heredoc or directive but ``escape``, so that the Docker engine (whose parser may be
an older or newer buildkit) cannot read it any other way. Each rendering is parsed again and
must give back the same instructions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.sandbox.engine import INSTALL_HINT
from arena.sandbox.errors import DockerUnavailable

DEFAULT_ESCAPE = "\\"
ESCAPES = (DEFAULT_ESCAPE, "`")
DIRECTIVES = frozenset({"escape", "syntax", "check"})
"""The parser directives some buildkit version knows (an unknown one ends the directives)."""

GO_SPACE = " \t\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
"""What Go's ``unicode.IsSpace`` calls white space (older buildkit trims it off a line's end)."""
DIRECTIVE = re.compile(r"^#[ \t]*([A-Za-z][A-Za-z0-9]*)[ \t]*=[ \t]*(.+?)[ \t]*$")
BOM = "\ufeff"


class DockerfileError(ValueError):
    """A Dockerfile that cannot be read; the message is one line naming the problem."""


@dataclass(frozen=True)
class Instruction:
    """One instruction as the builder reads it."""

    keyword: str
    """Upper case: ``FROM``, ``RUN``, ..."""
    line: int
    flags: tuple[str, ...]
    """``--name=value`` words before the arguments, as written."""
    value: tuple[str, ...]
    """The arguments: words, or a shell-form command's one string."""
    json: bool
    """Whether the arguments were written in JSON (exec) form."""
    original: str
    """The whole instruction on one line (continuations joined), as the builder prints it."""
    inner: str = ""
    """The instruction an ``ONBUILD`` holds."""
    heredocs: int = 0
    """How many ``<<EOF`` documents the instruction reads."""

    @property
    def where(self) -> str:
        """Where it is, for messages."""
        return f"the Dockerfile's line {self.line}"

    def shape(self) -> tuple[str, str, tuple[str, ...], tuple[str, ...], bool, int]:
        """What a rendering must give back: all but the text and the line."""
        return (self.keyword, self.inner, self.flags, self.value, self.json, self.heredocs)


@dataclass(frozen=True)
class Dockerfile:
    """A parsed Dockerfile: its escape character, directives and instructions."""

    escape: str
    directives: tuple[tuple[str, str, int], ...]
    """Each parser directive at the top: name (lower case), value, line."""
    instructions: tuple[Instruction, ...]


def read_dockerfile(path: Path, max_bytes: int) -> Dockerfile:
    """Parse a Dockerfile of at most ``max_bytes`` of UTF-8 text."""
    if path.stat().st_size > max_bytes:
        raise DockerfileError(f"the Dockerfile is over {max_bytes // 2**10} KiB")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DockerfileError("the Dockerfile is not UTF-8 text") from None
    return parse_dockerfile(text)


def parse_dockerfile(text: str) -> Dockerfile:
    """Parse Dockerfile text with the builder's parser."""
    if "\0" in text:
        raise DockerfileError("the Dockerfile holds a NUL character")
    found = directives(text)
    escape = next((value for name, value, _ in found if name == "escape"), DEFAULT_ESCAPE)
    return Dockerfile(escape=escape, directives=tuple(found), instructions=_parse(text))


def directives(text: str) -> list[tuple[str, str, int]]:
    """The parser directives at the top of the file, as buildkit finds them."""
    found: list[tuple[str, str, int]] = []
    for number, line in enumerate(text.removeprefix(BOM).split("\n"), start=1):
        match = DIRECTIVE.match(line.removesuffix("\r"))
        if match is None or match[1].lower() not in DIRECTIVES:
            break
        name = match[1].lower()
        if any(name == seen for seen, _, _ in found):
            raise DockerfileError(f"the Dockerfile's line {number}: only one {name} "
                                  f"directive can be used")
        found.append((name, match[2], number))
    for name, value, number in found:
        if name == "escape" and value not in ESCAPES:
            raise DockerfileError(f"the Dockerfile's line {number}: the escape directive takes "
                                  f"\\ or `, not {quote(value)}")
    return found


def render(escape: str, lines: Sequence[str]) -> str:
    """A Dockerfile of these one-line instructions (white space at their ends dropped), with
    the escape directive when needed."""
    head = [] if escape == DEFAULT_ESCAPE else [f"# escape={escape}"]
    return "\n".join([*head, *(line.rstrip(GO_SPACE) for line in lines)]) + "\n"


def render_checked(escape: str, lines: Sequence[str],
                   expected: Sequence[Instruction]) -> str:
    """``render``, refused unless the parser reads back exactly ``expected``."""
    text = render(escape, lines)
    problem = ""
    if any("\n" in line or "\r" in line for line in lines):
        problem = "an instruction spans lines"
    else:
        try:
            back = _parse(text)
        except DockerfileError as error:
            problem = str(error)
        else:
            if [item.shape() for item in back] != [item.shape() for item in expected]:
                problem = "it reads back differently"
    if problem:
        raise DockerfileError(f"the Dockerfile cannot be rewritten one instruction a line "
                              f"({problem}); write each instruction plainly")
    return text


def exec_form(keyword: str, words: Sequence[str]) -> str:
    """An instruction in JSON (exec) form."""
    return f"{keyword} {json.dumps(list(words), ensure_ascii=False)}"


def quote(text: str) -> str:
    """A Dockerfile word for a one-line message."""
    return repr(text if len(text) <= 80 else text[:77] + "...")


def _parse(text: str) -> tuple[Instruction, ...]:
    """The instructions, or a DockerfileError with the parser's own message."""
    buildkit = _parser()
    try:
        commands = buildkit.parse_string(text)
    except buildkit.GoParseError as error:
        message = " ".join(str(error).split()) or "it does not parse"
        raise DockerfileError(f"the Dockerfile does not parse: {message}") from None
    return tuple(Instruction(keyword=command.cmd.upper(), line=command.start_line,
                             flags=tuple(command.flags), value=tuple(command.value),
                             json=bool(command.json), original=command.original,
                             inner=(command.sub_cmd or "").upper(),
                             heredocs=len(command.heredocs))
                 for command in commands)


def _parser() -> Any:
    """The ``dockerfile`` package (buildkit's parser), or DockerUnavailable naming the fix."""
    try:
        import dockerfile
    except ImportError:
        raise DockerUnavailable(f"reading Dockerfiles needs the dockerfile package: "
                                f"{INSTALL_HINT}") from None
    return dockerfile
