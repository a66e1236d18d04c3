"""Building uploaded bots in Docker: a good bot is labelled; failures, timeouts and size caps
are refused in one line with nothing left behind."""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from docker.errors import ImageNotFound
from sandbox.conftest import base_image, docker_required  # noqa: F401  (fixtures used by name)

from arena.sandbox import labels
from arena.sandbox.errors import BuildError
from arena.sandbox.images import BASE_IMAGE
from arena.server.uploads import (
    UploadError,
    UploadLimits,
    UploadTimedOut,
    UploadTooLarge,
    build_uploaded_bot,
    unpack_bot_archive,
    upload_refusal,
)

from .archives import TINY_BOT_TOML, Member, tar_bytes, tiny_bot, zip_bytes

DOCKER = pytest.mark.usefixtures("docker_required", "base_image")

Unpack = Callable[[list[Member]], Path]

GROWING_DOCKERFILE = ("ARG BASE\nFROM ${BASE}\n"
                      "RUN head -c 64000000 /dev/zero > /tmp/blob && sleep 600\n")


@pytest.fixture
def tag(docker_required: Any) -> Iterator[str]:  # noqa: F811
    """A fresh image tag, removed (with anything it names) after the test."""
    name = f"cardarena-bot/upload-test-{uuid.uuid4().hex[:12]}:0.1.0"
    yield name
    with contextlib.suppress(ImageNotFound):
        docker_required.api.remove_image(name, force=True)


@pytest.fixture
def unpack(tmp_path: Path) -> Unpack:
    """Unpack an archive of the given members (as a tar.gz) and return the bot's folder."""
    def run(members: list[Member]) -> Path:
        """The bot folder of a fresh upload."""
        return unpack_bot_archive(tar_bytes(members, "gz"), tmp_path / "upload")
    return run


def step_containers(client: Any, command_part: str) -> list[str]:
    """Containers (any state) whose command mentions ``command_part``: a build step left over."""
    return [container["Id"] for container in client.api.containers(all=True)
            if command_part in str(container.get("Command", ""))]


def tagged(client: Any, name: str) -> bool:
    """True when an image has this tag."""
    try:
        client.api.inspect_image(name)
    except ImageNotFound:
        return False
    return True


@DOCKER
def test_good_upload_builds_a_labelled_image(docker_required: Any, tmp_path: Path,  # noqa: F811
                                             tag: str) -> None:
    """A zip of a tiny Python bot builds under the caller's tag with the bot's labels."""
    folder = unpack_bot_archive(zip_bytes(tiny_bot("tiny/")), tmp_path / "upload")
    said: list[str] = []
    image = build_uploaded_bot(folder, tag=tag, progress=said.append)
    assert (image.ref, image.name, image.version, image.games, image.language) == (
        tag, "tiny", "0.1.0", ("briscola",), "python")
    inspected = docker_required.api.inspect_image(tag)
    assert inspected["Id"] == image.image_id
    image_labels = inspected["Config"]["Labels"]
    assert {key: image_labels.get(key) for key in (
        labels.SANDBOX, labels.BOT_NAME, labels.BOT_VERSION, labels.BOT_LANGUAGE,
        labels.BOT_GAMES)} == {labels.SANDBOX: "1", labels.BOT_NAME: "tiny",
                               labels.BOT_VERSION: "0.1.0", labels.BOT_LANGUAGE: "python",
                               labels.BOT_GAMES: "briscola"}
    assert any(line.startswith("Step ") for line in said)
    output = docker_required.containers.run(tag, ["python", "-c", "import bot; print('ok')"],
                                            network_mode="none", remove=True,
                                            labels={labels.SANDBOX: "1"}, working_dir="/bot")
    assert output.decode().strip() == "ok"


@DOCKER
def test_build_that_never_ends_is_stopped(docker_required: Any, unpack: Unpack,  # noqa: F811
                                          tag: str) -> None:
    """`RUN sleep 100000` past a 5 s limit: refused as a timeout, no container or image left."""
    folder = unpack(tiny_bot(dockerfile="ARG BASE\nFROM ${BASE}\nRUN sleep 100000\n"))
    with pytest.raises(UploadTimedOut) as raised:
        build_uploaded_bot(folder, tag=tag, limits=UploadLimits(build_timeout_s=5))
    assert re.fullmatch(r"bot tiny: the build ran past its time limit of 5 s at the Dockerfile's "
                        r"line 3 \(RUN sleep 100000\); it was stopped", str(raised.value))
    assert step_containers(docker_required, "sleep 100000") == []
    assert not tagged(docker_required, tag)


@DOCKER
def test_failing_step_is_named(docker_required: Any, unpack: Unpack,  # noqa: F811
                               tag: str) -> None:
    """`RUN false` fails the build; the message names the step, the log holds its last lines."""
    folder = unpack(tiny_bot(dockerfile="ARG BASE\nFROM ${BASE}\nRUN echo checking && false\n"))
    with pytest.raises(UploadError) as raised:
        build_uploaded_bot(folder, tag=tag)
    message = str(raised.value)
    assert re.match(r"bot tiny: the build failed at the Dockerfile's line 3 "
                    r"\(RUN echo checking && false\): RUN returned a non-zero code: 1$",
                    message), message
    assert "returned a non-zero code: 1" in message
    assert "\n" not in message
    assert "checking" in raised.value.log
    assert not tagged(docker_required, tag)


@DOCKER
def test_image_growing_over_the_size_cap_is_stopped(docker_required: Any,  # noqa: F811
                                                    unpack: Unpack, tag: str) -> None:
    """A step writing past image_bytes is killed and refused as too large; nothing is left."""
    client = docker_required
    limit = int(client.api.inspect_image(BASE_IMAGE)["Size"]) + 32 * 2**20
    folder = unpack(tiny_bot(dockerfile=GROWING_DOCKERFILE))
    with pytest.raises(UploadTooLarge) as raised:
        build_uploaded_bot(folder, tag=tag, limits=UploadLimits(image_bytes=limit))
    assert re.fullmatch(r"bot tiny: the image grew to [\d.]+ MiB at the Dockerfile's line 3 "
                        r"\(RUN head .*\), "
                        rf"over the limit of {limit / 2**20:.1f} MiB; the build was stopped",
                        str(raised.value)), str(raised.value)
    assert step_containers(client, "/tmp/blob") == []
    assert not tagged(client, tag)


@pytest.mark.usefixtures("docker_required")
def test_missing_base_image_is_the_operators_problem(unpack: Unpack, tag: str) -> None:
    """Without the base image the build stops with the sandbox's own error, not an UploadError."""
    folder = unpack(tiny_bot())
    with pytest.raises(BuildError, match=r"^the base image cardarena/python-base:missing is "
                                         r"missing; run `arena images build-base`$"):
        build_uploaded_bot(folder, tag=tag, base="cardarena/python-base:missing")


# --- refused before Docker is asked anything -----------------------------------------------


def test_host_build_command_is_refused(tmp_path: Path) -> None:
    """A folder whose bot.toml names a host build command is never built."""
    for name, content in {"bot.toml": TINY_BOT_TOML + 'build = ["sh", "build.sh"]\n',
                          "Dockerfile": "FROM scratch\n"}.items():
        (tmp_path / name).write_text(content)
    with pytest.raises(UploadError, match=r"^bot\.toml has a 'build' command: host build "
                                          r"commands are not allowed in uploads"):
        build_uploaded_bot(tmp_path, tag="cardarena-bot/never:0")


def test_folder_with_a_link_is_refused(tmp_path: Path) -> None:
    """A bot folder holding a symbolic link (not made by unpacking) is refused."""
    for member in tiny_bot():
        (tmp_path / member.name).write_bytes(member.data)
    (tmp_path / "passwd").symlink_to("/etc/passwd")
    with pytest.raises(UploadError, match=r"^the bot's folder holds 'passwd', which is not a "
                                          r"plain file or folder; links are not allowed"):
        build_uploaded_bot(tmp_path, tag="cardarena-bot/never:0")


def test_fetching_dockerfile_is_refused_before_building(tmp_path: Path) -> None:
    """The Dockerfile policy runs before the build."""
    for member in tiny_bot(dockerfile="FROM alpine\n"):
        (tmp_path / member.name).write_bytes(member.data)
    with pytest.raises(UploadError, match=r"FROM 'alpine' would fetch an image"):
        build_uploaded_bot(tmp_path, tag="cardarena-bot/never:0")


@pytest.mark.parametrize(("message", "kind"), [
    ("bot x: the build ran past its time limit of 5 s; it was stopped", UploadTimedOut),
    ("bot x: the image is 5.0 MiB, over the limit of 1.0 MiB; it was removed", UploadTooLarge),
    ("bot x: the build failed at step 2/3 (RUN false): code 1", UploadError),
])
def test_build_errors_become_upload_errors(message: str, kind: type[UploadError]) -> None:
    """Each sandbox build error maps to the UploadError kind the API tells apart, log kept."""
    refusal = upload_refusal(BuildError(message, log="last\nlines"))
    assert type(refusal) is kind
    assert (str(refusal), refusal.log) == (message, "last\nlines")
