"""What an uploaded Dockerfile may ask of the Docker daemon: an allow-list, read as Docker reads it.

The file is read by buildkit's own parser (``arena.sandbox.dockerfile``) and every instruction,
flag and directive must be on the list below; anything else is refused, naming its line. The
build then sends Docker the arena's one-line-a-step rendering of that reading, never the file.

- Directives: ``escape`` only (``syntax`` would make BuildKit fetch a frontend image).
- ``ARG BASE`` is the one instruction allowed before the first ``FROM`` (a default is allowed
  and never used: the build always sets ``BASE`` to the base image's id).
- ``FROM ${BASE}`` / ``FROM $BASE`` (the arena's base image, by id), ``FROM scratch`` or an
  earlier stage by name, with ``AS <name>``; no flags (``--platform``).
- ``RUN`` without flags (``--mount``, ``--network``, ``--security``) and without heredocs.
- ``COPY`` of context paths, with ``--chown`` and ``--from=<earlier stage name or number>``
  only; no ``$`` in its sources or ``--from``.
- ``WORKDIR``, ``ENV``, ``ARG`` (in a stage), ``USER``, ``LABEL`` (not ``cardarena.*``),
  ``CMD``, ``ENTRYPOINT``, ``EXPOSE``, all without flags.

Refused: ``ADD`` (it fetches URLs and git repositories from the daemon's network, and unpacks
archives outside the build's size guard: use ``COPY``, and unpack in a ``RUN`` step),
``ONBUILD``, ``VOLUME``, ``SHELL``, ``HEALTHCHECK``, ``STOPSIGNAL``, ``MAINTAINER``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from arena.sandbox.dockerfile import (
    Dockerfile,
    DockerfileError,
    Instruction,
    quote,
    read_dockerfile,
)
from arena.server.archive import UploadError

DOCKERFILE_BYTES = 256 * 2**10
"""The largest Dockerfile an upload may hold."""

BASE_REFERENCES = frozenset({"$BASE", "${BASE}"})
SCRATCH = "scratch"
STAGE_NAME = re.compile(r"^[a-z][a-z0-9_.-]*$")
STAGE_REFERENCE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
PLAIN = frozenset({"RUN", "WORKDIR", "ENV", "ARG", "USER", "LABEL", "CMD", "ENTRYPOINT",
                   "EXPOSE"})
"""Allowed instructions that take no flags (FROM and COPY are checked on their own)."""
COPY_FLAGS = frozenset({"from", "chown"})
RESERVED_LABELS = "cardarena."
ALLOWED = "FROM, RUN, COPY, WORKDIR, ENV, ARG, USER, LABEL, CMD, ENTRYPOINT, EXPOSE"

ADVICE = "build FROM ${BASE} (the arena's base image), scratch or an earlier stage"
WHY_REFUSED = {
    "ADD": "ADD is not allowed in uploads (it fetches URLs and unpacks archives); use COPY, "
           "and unpack archives in a RUN step",
    "ONBUILD": "ONBUILD is not allowed in uploads",
    "VOLUME": "VOLUME is not allowed in uploads (a volume would be host disk outside the "
              "bot's limits)",
    "SHELL": "SHELL is not allowed in uploads; call the shell you want in RUN",
}


@dataclass
class _Stages:
    """The stages declared so far: names, by number."""

    names: list[str] = field(default_factory=list)
    base_declared: bool = False

    def knows(self, reference: str) -> bool:
        """True when ``reference`` names a stage before the current one (by name or number)."""
        earlier = self.names[:-1]
        if reference.isdigit():
            return int(reference) < len(earlier)
        return bool(reference) and reference.lower() in earlier


def check_dockerfile(path: Path) -> Dockerfile:
    """The uploaded Dockerfile as Docker reads it, or an UploadError naming what is refused."""
    try:
        dockerfile = read_dockerfile(path, DOCKERFILE_BYTES)
    except DockerfileError as error:
        raise UploadError(str(error)) from None
    _check_characters(path.read_text(encoding="utf-8"))
    for name, _, number in dockerfile.directives:
        if name != "escape":
            raise UploadError(f"the Dockerfile's line {number}: the {name!r} parser directive "
                              f"is not allowed in uploads (only 'escape' is)")
    stages = _Stages()
    for instruction in dockerfile.instructions:
        _check(instruction, stages)
    return dockerfile


def _check_characters(text: str) -> None:
    """Refuse control characters and white space other than spaces, tabs and line ends: parsers
    of different versions split or trim lines at them differently."""
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        for character in line.removesuffix("\r"):
            if character in " \t":
                continue
            if not character.isprintable() or character.isspace():
                raise UploadError(f"the Dockerfile's line {number} holds the character "
                                  f"U+{ord(character):04X}; only printable characters, spaces "
                                  f"and tabs are allowed in uploads")


def _check(instruction: Instruction, stages: _Stages) -> None:
    """Refuse one instruction that is not on the allow-list; record stages."""
    where, keyword = instruction.where, instruction.keyword
    if instruction.heredocs:
        raise UploadError(f"{where}: heredocs (<<EOF) are not allowed in uploads; put the "
                          f"script in a file of the bot's folder")
    if not stages.names:
        if (keyword == "ARG" and len(instruction.value) == 1 and not instruction.flags
                and instruction.value[0].partition("=")[0] == "BASE"):
            stages.base_declared = True
            return
        if keyword != "FROM":
            raise UploadError(f"{where}: only ARG BASE may come before the first FROM in "
                              f"uploads")
    if keyword == "FROM":
        _check_from(instruction, stages)
    elif keyword == "COPY":
        _check_copy(instruction, stages)
    elif keyword in WHY_REFUSED:
        raise UploadError(f"{where}: {WHY_REFUSED[keyword]}")
    elif keyword not in PLAIN:
        raise UploadError(f"{where}: {keyword} is not allowed in uploads (allowed: {ALLOWED})")
    elif instruction.flags:
        raise UploadError(f"{where}: {keyword} takes no flags in uploads "
                          f"({' '.join(instruction.flags)})")
    elif keyword == "LABEL":
        _check_label(instruction)


def _check_from(instruction: Instruction, stages: _Stages) -> None:
    """FROM the base image, scratch or an earlier stage, maybe named with AS."""
    where, words = instruction.where, instruction.value
    if instruction.flags:
        raise UploadError(f"{where}: FROM takes no options in uploads; {ADVICE}")
    if len(words) not in (1, 3) or (len(words) == 3 and words[1].upper() != "AS"):
        raise UploadError(f"{where}: FROM takes an image and maybe AS <name>; {ADVICE}")
    image = words[0]
    if image in BASE_REFERENCES:
        if not stages.base_declared:
            raise UploadError(f"{where}: FROM {image} needs ARG BASE before the first FROM")
    elif image != SCRATCH and image.lower() not in stages.names:
        what = "names a variable" if "$" in image else "would fetch an image"
        raise UploadError(f"{where}: FROM {quote(image)} {what}; {ADVICE}")
    name = words[2] if len(words) == 3 else ""
    if name and (not STAGE_NAME.match(name.lower()) or name.lower() in stages.names):
        raise UploadError(f"{where}: {quote(name)} is not a new stage name (letters, digits, "
                          f"'_', '.', '-', starting with a letter)")
    stages.names.append(name.lower())


def _check_copy(instruction: Instruction, stages: _Stages) -> None:
    """COPY of context paths or of an earlier stage's files."""
    where = instruction.where
    for flag in instruction.flags:
        name, equals, value = flag.removeprefix("--").partition("=")
        if not flag.startswith("--") or name.lower() not in COPY_FLAGS or not equals:
            raise UploadError(f"{where}: COPY takes only --from=<stage> and --chown=<user> in "
                              f"uploads, not {quote(flag)}")
        if name.lower() == "from" and not (STAGE_REFERENCE.match(value)
                                           and stages.knows(value)):
            raise UploadError(f"{where}: COPY --from={quote(value)} is not an earlier stage; "
                              f"copy from an earlier stage, by name or number")
    if len(instruction.value) < 2:
        raise UploadError(f"{where}: COPY needs a source and a destination")
    for source in instruction.value[:-1]:
        if "$" in source:
            raise UploadError(f"{where}: COPY source {quote(source)} names a variable; name "
                              f"the files of the bot's folder plainly")


def _check_label(instruction: Instruction) -> None:
    """No LABEL key of the arena's own (cardarena.*), nor one made of variables."""
    keys = instruction.value[0::2]
    for key in keys:
        plain = re.sub(r"[\"'\\`]", "", key).lower()
        if "$" in key or plain.startswith(RESERVED_LABELS):
            raise UploadError(f"{instruction.where}: the label {quote(key)} is reserved for the "
                              f"arena (cardarena.*) or names a variable")
