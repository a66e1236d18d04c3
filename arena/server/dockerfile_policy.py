"""What an uploaded Dockerfile may ask of the Docker daemon: nothing fetched from the network.

``network_mode="none"`` cuts off ``RUN`` steps, but the daemon itself pulls the images named by
``FROM`` and ``COPY --from``, and fetches ``ADD`` sources that are URLs. So an uploaded Dockerfile
may only build ``FROM ${BASE}`` (set to the arena's base image), ``scratch`` or an earlier stage,
copy from earlier stages, and ``ADD`` files from its own folder.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.server.archive import UploadError

DOCKERFILE_BYTES = 256 * 2**10
"""The largest Dockerfile an upload may hold."""

BASE_REFERENCES = frozenset({"$BASE", "${BASE}", "scratch"})
"""What a ``FROM`` may name besides an earlier stage."""

DIRECTIVE = re.compile(r"^#\s*([A-Za-z]+)\s*=\s*(\S*)\s*$")
ARGUMENT = re.compile(r"^--([A-Za-z-]+)(?:=(.*))?$")
REMOTE = re.compile(r"://|^git@|\$")

ADVICE = "build FROM ${BASE} (the arena's base image), scratch or an earlier stage"


def check_dockerfile(path: Path) -> None:
    """Refuse a Dockerfile that would make the daemon fetch an image or a URL."""
    if path.stat().st_size > DOCKERFILE_BYTES:
        raise UploadError(f"the Dockerfile is over {DOCKERFILE_BYTES // 2**10} KiB")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UploadError("the Dockerfile is not UTF-8 text") from None
    stages: list[str] = []
    for number, instruction, arguments in instructions(text):
        _check(number, instruction, arguments, stages)


def instructions(text: str) -> list[tuple[int, str, str]]:
    """The Dockerfile's instructions: line number, upper-case keyword and argument text."""
    lines = text.splitlines()
    escape = "\\"
    for line in lines:
        directive = DIRECTIVE.match(line)
        if directive is None:
            break
        if directive[1].lower() == "escape" and directive[2] in ("\\", "`"):
            escape = directive[2]
    found: list[tuple[int, str, str]] = []
    pending: list[str] = []
    first = 0
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("#") or (not stripped and not pending):
            continue
        if not pending:
            first = number
        if stripped.endswith(escape):
            pending.append(stripped[:-1])
            continue
        pending.append(stripped)
        found.append(_instruction(first, " ".join(pending)))
        pending = []
    if pending:
        found.append(_instruction(first, " ".join(pending)))
    return found


def _instruction(number: int, logical: str) -> tuple[int, str, str]:
    """Split one logical line into its keyword and arguments."""
    keyword, _, arguments = logical.strip().partition(" ")
    return number, keyword.upper(), arguments.strip()


def _check(number: int, instruction: str, arguments: str, stages: list[str]) -> None:
    """Refuse one instruction that would fetch something; record stage names."""
    where = f"the Dockerfile's line {number}"
    if instruction == "ONBUILD":
        inner, _, rest = arguments.partition(" ")
        _check(number, inner.upper(), rest.strip(), list(stages))
        return
    if instruction == "FROM":
        words = arguments.split()
        if not words or words[0].startswith("--"):
            raise UploadError(f"{where}: FROM takes no options in uploads; {ADVICE}")
        image = words[0]
        if image not in BASE_REFERENCES and image.lower() not in stages:
            raise UploadError(f"{where}: FROM {quote(image)} would fetch an image; {ADVICE}")
        if len(words) == 3 and words[1].upper() == "AS":
            stages.append(words[2].lower())
        else:
            stages.append("")
        return
    if instruction in ("COPY", "ADD"):
        words = _words(arguments)
        for word in words:
            option = ARGUMENT.match(word)
            if option and option[1] == "from":
                source = (option[2] or "").lower()
                known = source in stages or (source.isdigit() and int(source) < len(stages))
                if not source or not known:
                    raise UploadError(f"{where}: {instruction} --from={quote(source)} would "
                                      f"fetch an image; copy from an earlier stage")
        sources = [word for word in words if not ARGUMENT.match(word)][:-1]
        if instruction == "ADD" and any(REMOTE.search(source) for source in sources):
            raise UploadError(f"{where}: ADD from a URL, a git repository or a variable is not "
                              f"allowed in uploads; put the files in the bot's folder")


def _words(arguments: str) -> list[str]:
    """The words of a shell-form or JSON-form argument list."""
    if arguments.startswith("["):
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            return parsed
    return arguments.split()


def quote(text: str) -> str:
    """A Dockerfile word for a one-line message."""
    return repr(text if len(text) <= 80 else text[:77] + "...")
