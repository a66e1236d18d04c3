"""The build guard: every RUN step of a bot image's build runs under ``guard.c``.

The guard is a static binary in an image of its own (``cardarena/build-guard:<hash>``, made
with ``docker import``, never pulled). A bot's Dockerfile is rendered with each ``RUN`` in exec
form behind the guard, a fresh copy of the guard placed just before it (``COPY --from=<guard
image id>``), so nothing a step did before can stand in for it.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from arena.sandbox import labels
from arena.sandbox.dockerfile import (
    GO_SPACE,
    Dockerfile,
    DockerfileError,
    Instruction,
    exec_form,
    parse_dockerfile,
    quote,
    render,
    render_checked,
)
from arena.sandbox.errors import BuildError

GUARD_REPOSITORY = "cardarena/build-guard"
GUARD_PATH = "/.cardarena/guard"
"""Where each RUN step finds the guard in its container."""
MARKER = "cardarena-build-guard: the step's command ended; the host measures it"
"""The line the guard prints once the step's processes are all gone (as in ``guard.c``)."""
DEFAULT_SHELL = ("/bin/sh", "-c")
BASE_REFERENCES = frozenset({"$BASE", "${BASE}"})
COMPILE_S = 120.0


@dataclass(frozen=True)
class GuardedDockerfile:
    """A Dockerfile rendered for a guarded build, and the steps Docker must print for it."""

    text: str
    steps: tuple[str, ...]
    """Each step's text as the builder prints it (``Step i/n : <text>``), in order."""
    sources: tuple[Instruction | None, ...]
    """The instruction each step comes from (None for the guard's own copies)."""


def guard_source() -> str:
    """The guard's C source."""
    return resources.files("arena.sandbox").joinpath("guard.c").read_text(encoding="utf-8")


def guard_tag() -> str:
    """The guard image's tag: its source's hash."""
    digest = hashlib.sha256(guard_source().encode()).hexdigest()[:16]
    return f"{GUARD_REPOSITORY}:{digest}"


def ensure_guard_image(client: Any) -> str:
    """The id of the guard image, compiled and imported first when missing."""
    tag = guard_tag()
    try:
        return str(client.api.inspect_image(tag)["Id"])
    except Exception as error:
        if getattr(getattr(error, "response", None), "status_code", None) != 404:
            raise
    binary = compile_guard()
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        info = tarfile.TarInfo("guard")
        info.size, info.mode = len(binary), 0o755
        tar.addfile(info, io.BytesIO(binary))
    repository, _, version = tag.partition(":")
    client.api.import_image_from_data(archive.getvalue(), repository=repository, tag=version,
                                      changes=[f"LABEL {labels.SANDBOX}=1"])
    return str(client.api.inspect_image(tag)["Id"])


def compile_guard() -> bytes:
    """The guard compiled as a static executable by the host's C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise BuildError("the build guard needs a C compiler: install gcc and libc6-dev")
    with tempfile.TemporaryDirectory(prefix="cardarena-guard-") as scratch:
        source, binary = Path(scratch, "guard.c"), Path(scratch, "guard")
        source.write_text(guard_source(), encoding="utf-8")
        done = subprocess.run([compiler, "-static", "-O2", "-s", "-o", str(binary), str(source)],
                              capture_output=True, text=True, timeout=COMPILE_S, check=False)
        if done.returncode != 0:
            detail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise BuildError(f"the build guard does not compile here (static libc missing? "
                             f"install libc6-dev): {detail}")
        return binary.read_bytes()


def guard_dockerfile(dockerfile: Dockerfile, guard_image: str,
                     labels: dict[str, str] | None = None, *,
                     strict: bool = False) -> GuardedDockerfile:
    """Render ``dockerfile`` one instruction a line with every RUN behind the guard, and the
    ``labels`` set last (one step, over any label of the same name the file set). ``strict``
    (an untrusted build) refuses any image the rendering would reach but the base, scratch,
    an earlier stage and the guard (``reached_images``)."""
    if strict:
        reached_images(dockerfile.instructions)
    lines: list[str] = []
    expected: list[Instruction] = []
    sources: list[Instruction | None] = []
    stages: list[tuple[str, tuple[str, ...]]] = []
    for instruction in dockerfile.instructions:
        if instruction.heredocs:
            raise DockerfileError(f"{instruction.where}: heredocs (<<EOF) are not supported by "
                                  f"the arena's builder; put the script in a file")
        if instruction.keyword == "FROM":
            stages.append(_stage(instruction, stages))
        elif instruction.keyword == "SHELL" and instruction.json and stages:
            stages[-1] = (stages[-1][0], instruction.value)
        if instruction.keyword != "RUN":
            lines.append(instruction.original.rstrip(GO_SPACE))
            expected.append(instruction)
            sources.append(instruction)
            continue
        if instruction.flags:
            raise DockerfileError(f"{instruction.where}: RUN takes no flags in the arena's "
                                  f"builder ({' '.join(instruction.flags)})")
        copy = f"COPY --from={guard_image} /guard {GUARD_PATH}"
        shell = stages[-1][1] if stages else DEFAULT_SHELL
        command = instruction.value if instruction.json else (*shell, instruction.value[0])
        run = exec_form("RUN", [GUARD_PATH, *command])
        lines += [copy, run]
        expected += [_expected("COPY", (f"--from={guard_image}",), ("/guard", GUARD_PATH), False),
                     _expected("RUN", (), (GUARD_PATH, *command), True)]
        sources += [None, instruction]
    if labels:
        line = label_line(labels, dockerfile.escape)
        lines.append(line)
        expected += parse_dockerfile(render(dockerfile.escape, [line])).instructions
        sources.append(None)
    text = render_checked(dockerfile.escape, lines, expected)
    return GuardedDockerfile(text=text, steps=tuple(lines), sources=tuple(sources))


def reached_images(instructions: Sequence[Instruction]) -> None:
    """Refuse instructions that reach an image other than ``${BASE}``, scratch or an earlier
    stage (the sandbox's own check of what it sends, whatever the policy above it let by)."""
    stages: list[str] = []
    for item in instructions:
        if item.keyword in ("ADD", "ONBUILD") or (item.keyword == "RUN" and item.flags):
            raise DockerfileError(f"{item.where}: {item.keyword} {' '.join(item.flags)} may "
                                  f"reach outside the build; not allowed here")
        if item.keyword == "FROM":
            image = item.value[0] if item.value else ""
            if item.flags or not (image in BASE_REFERENCES or image == "scratch"
                                  or image.lower() in stages):
                raise DockerfileError(f"{item.where}: FROM {quote(image)} is not the base "
                                      f"image, scratch or an earlier stage")
            stages.append(item.value[2].lower() if len(item.value) == 3 else "")
        for flag in item.flags:
            name, _, value = flag.removeprefix("--").partition("=")
            if name.lower() == "from" and not _earlier_stage(value, stages):
                raise DockerfileError(f"{item.where}: --from={quote(value)} is not an earlier "
                                      f"stage")


def _earlier_stage(reference: str, stages: list[str]) -> bool:
    """True when ``reference`` names a stage before the current one, by name or number."""
    earlier = stages[:-1]
    if reference.isdigit():
        return int(reference) < len(earlier)
    return bool(reference) and "$" not in reference and reference.lower() in earlier


def label_line(labels: dict[str, str], escape: str) -> str:
    """One LABEL instruction setting ``labels``, each key and value double-quoted."""
    def quoted(text: str) -> str:
        """``text`` in double quotes, its escape character, quotes and ``$`` escaped."""
        for special in (escape, '"', "$"):
            text = text.replace(special, escape + special)
        return f'"{text}"'
    return "LABEL " + " ".join(f"{quoted(key)}={quoted(value)}"
                               for key, value in sorted(labels.items()))


def _stage(instruction: Instruction,
           stages: list[tuple[str, tuple[str, ...]]]) -> tuple[str, tuple[str, ...]]:
    """A new stage's name and shell: its parent stage's shell, or the default for an image."""
    words = instruction.value
    parent = words[0].lower() if words else ""
    shell = next((shell for name, shell in stages if name == parent), None)
    name = words[2].lower() if len(words) == 3 and words[1].upper() == "AS" else ""
    return name, shell or DEFAULT_SHELL


def _expected(keyword: str, flags: tuple[str, ...], value: tuple[str, ...],
              json: bool) -> Instruction:
    """The shape an added instruction must read back as."""
    return Instruction(keyword=keyword, line=0, flags=flags, value=value, json=json, original="")
