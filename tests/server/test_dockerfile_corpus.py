"""A corpus of tricky Dockerfiles (``dockerfiles/``), each built for real by the Docker engine
with no policy: the instructions Docker runs (its ``Step i/n`` lines) are the ones the arena's
parser reads, except where the corpus says Docker's older parser differs, and those files are
refused. Each file the policy allows also builds as an upload, where the guarded build checks
every step Docker announces against the arena's rendering."""

from __future__ import annotations

import contextlib
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from docker.errors import APIError
from sandbox.conftest import base_image, docker_required  # noqa: F401  (fixtures used by name)

from arena.sandbox.dockerfile import GO_SPACE, parse_dockerfile
from arena.server.dockerfile_policy import check_dockerfile
from arena.server.uploads import UploadError, build_uploaded_bot

from .archives import tiny_bot

CORPUS = Path(__file__).with_name("dockerfiles")
STEP = re.compile(r"^(?:\x1b\[0m)?Step \d+/\d+ : (.*)$")
"""A step line (after the reset of a warning's colour, when Docker printed one)."""

REFUSED = {
    "onbuild": "the Dockerfile's line 3: ONBUILD is not allowed in uploads",
    "syntax-directive": "the Dockerfile's line 1: the 'syntax' parser directive is not allowed",
    "add-local": "the Dockerfile's line 3: ADD is not allowed in uploads",
    "heredoc": "the Dockerfile's line 3: heredocs (<<EOF) are not allowed in uploads",
    "syntax-then-escape": "the Dockerfile's line 1: the 'syntax' parser directive",
    "form-feed": "the Dockerfile's line 3 holds the character U+000C;",
    "unicode-separators": "the Dockerfile's line 3 holds the character U+2028;",
}
"""The corpus files the policy refuses, with the start of the refusal."""

DOCKER_DIFFERS = {"heredoc"}
"""Files the engine here (Docker 20.10's classic builder, an older buildkit parser) reads
otherwise than the arena's parser: it knows no heredocs. The policy refuses them; an allowed
file is never sent as written anyway, only as rendered. (White space at a line's end, which
the older parser trims and the rendering drops, is not compared.)"""

NAMES = sorted(path.name.removesuffix(".Dockerfile") for path in CORPUS.glob("*.Dockerfile"))


def docker_steps(client: Any, folder: Path, text: str, base: str) -> list[str]:
    """Build ``text`` in ``folder`` with the classic builder, no policy; the steps it ran."""
    dockerfile = folder.parent / "raw.Dockerfile"
    dockerfile.write_bytes(text.encode("utf-8"))
    tag = f"cardarena-bot/corpus-{uuid.uuid4().hex[:12]}:0"
    steps: list[str] = []
    partial = ""
    try:
        chunks = client.api.build(path=str(folder), dockerfile=str(dockerfile), tag=tag,
                                      buildargs={"BASE": base}, network_mode="none", rm=True,
                                      forcerm=True, decode=True,
                                  labels={"cardarena.sandbox": "1"})
        for chunk in chunks:
            lines = (partial + str(chunk.get("stream", ""))).split("\n")
            partial = lines.pop()
            steps += [match[1] for line in lines if (match := STEP.match(line))]
    except APIError:
        return []
    finally:
        with contextlib.suppress(Exception):
            client.api.remove_image(tag, force=True)
    return [step for step in steps if not step.startswith("LABEL cardarena.sandbox")]


def bot_folder(tmp_path: Path, text: str) -> Path:
    """A tiny bot's folder holding ``text`` as its Dockerfile."""
    folder = tmp_path / "bot"
    folder.mkdir()
    for member in tiny_bot():
        (folder / member.name).write_bytes(member.data)
    (folder / "Dockerfile").write_bytes(text.encode("utf-8"))
    return folder


def test_the_corpus_is_complete() -> None:
    """Every file named in the tables is in the corpus."""
    assert set(REFUSED) | DOCKER_DIFFERS <= set(NAMES)
    assert set(REFUSED) >= DOCKER_DIFFERS


@pytest.mark.usefixtures("base_image")
@pytest.mark.parametrize("name", NAMES)
def test_the_arena_reads_a_dockerfile_as_docker_runs_it(docker_required: Any,  # noqa: F811
                                                        tmp_path: Path, name: str) -> None:
    """Docker's steps (policy off) are the parser's instructions; the policy allows or refuses
    the file as the table says, and an allowed file builds through the guarded upload path."""
    client = docker_required
    text = (CORPUS / f"{name}.Dockerfile").read_bytes().decode("utf-8")
    folder = bot_folder(tmp_path, text)
    base = client.api.inspect_image("cardarena/python-base:latest")["Id"]
    ours = [instruction.original.rstrip(GO_SPACE)
            for instruction in parse_dockerfile(text).instructions]
    theirs = docker_steps(client, folder, text, base)
    if name in DOCKER_DIFFERS:
        assert theirs != ours
    else:
        assert theirs == ours
    if name in REFUSED:
        with pytest.raises(UploadError) as raised:
            check_dockerfile(folder / "Dockerfile")
        assert str(raised.value).startswith(REFUSED[name]), str(raised.value)
        return
    tag = f"cardarena-bot/corpus-{uuid.uuid4().hex[:12]}:0"
    try:
        image = build_uploaded_bot(folder, tag=tag)
        assert client.api.inspect_image(tag)["Id"] == image.image_id
    finally:
        with contextlib.suppress(Exception):
            client.api.remove_image(tag, force=True)
