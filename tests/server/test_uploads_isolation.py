"""One user's upload cannot reach another user's image, nor make the Docker daemon fetch a URL:
every trick is refused in one line, and nothing of the other image reaches the build's log,
error or image. A server on the host's loopback sees no request from any build."""

from __future__ import annotations

import contextlib
import http.server
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox.conftest import base_image, docker_required  # noqa: F401  (fixtures used by name)

from arena.sandbox.build import run_build
from arena.sandbox.dockerfile import parse_dockerfile
from arena.sandbox.errors import BuildError
from arena.server.archive import UploadError
from arena.server.uploads import build_uploaded_bot, unpack_bot_archive

from .archives import TINY_DOCKERFILE, Member, files, tar_bytes, tiny_bot

pytestmark = pytest.mark.usefixtures("base_image")

HEAD = "ARG BASE\nFROM ${BASE}\n"

STEALS = {
    "copy from the tag": HEAD + "COPY --from={tag} /bot/secret.txt /s\nRUN cat /s\n",
    "copy from the id": HEAD + "COPY --from={id} /bot/secret.txt /s\nRUN cat /s\n",
    "copy from a variable": HEAD + "ARG V={tag}\nCOPY --from=${V} /bot/secret.txt /s\n",
    "from the tag": "FROM {tag}\nRUN cat /bot/secret.txt\n",
    "from a second stage": HEAD + "FROM {tag} AS loot\nRUN cat /bot/secret.txt\n",
    "base default": "ARG BASE={tag}\nFROM ${BASE}\nRUN cat /bot/secret.txt\n",
    "run mount": HEAD + "RUN --mount=type=bind,from={tag},target=/v cat /v/bot/secret.txt\n",
    "onbuild": HEAD + "ONBUILD COPY --from={tag} /bot/secret.txt /s\n",
    "add": HEAD + "ADD docker-image://{tag} /v\n",
    "heredoc hiding a copy": HEAD + "RUN <<EOF\nEOF\nCOPY --from={tag} /bot/secret.txt /s\n",
    "escape after an unknown directive": "# foo=bar\n# escape=`\n" + HEAD
                                         + "RUN echo `\nCOPY --from={tag} /bot/secret.txt /s\n",
    "continuation with blank and comment lines": HEAD + "RUN echo \\\n\n# note\n"
                                                 "COPY --from={tag} /bot/secret.txt /s\n",
    "syntax frontend": "# syntax={tag}\n" + HEAD,
    "stage named like the image": HEAD + "FROM ${BASE} AS {tag}\nFROM {tag}\n",
}


@pytest.fixture(scope="module")
def victim() -> Iterator[dict[str, str]]:
    """User B's bot image, holding a secret file."""
    from sandbox.conftest import require_docker
    client = require_docker()
    secret = f"victim-secret-{uuid.uuid4().hex}"
    tag = f"cardarena-bot/victim-{uuid.uuid4().hex[:12]}:0.1.0"
    members = tiny_bot(dockerfile=TINY_DOCKERFILE + "COPY secret.txt /bot/secret.txt\n")
    members += files({"secret.txt": secret + "\n"})
    with _scratch() as folder:
        image = build_uploaded_bot(unpack_bot_archive(tar_bytes(members, "gz"), folder / "b"),
                                   tag=tag)
    yield {"tag": tag, "id": image.image_id, "secret": secret}
    with contextlib.suppress(Exception):
        client.api.remove_image(tag, force=True)


@contextlib.contextmanager
def _scratch() -> Iterator[Path]:
    """A temporary folder."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="cardarena-isolation-") as name:
        yield Path(name)


@pytest.fixture
def attacker_tag(docker_required: Any) -> Iterator[str]:  # noqa: F811
    """User A's image tag, removed after the test."""
    name = f"cardarena-bot/attacker-{uuid.uuid4().hex[:12]}:0.1.0"
    yield name
    with contextlib.suppress(Exception):
        docker_required.api.remove_image(name, force=True)


def upload(members: list[Member], into: Path, tag: str) -> tuple[str, list[str]]:
    """Unpack and build an upload; the refusal's text and log, and every progress line."""
    said: list[str] = []
    try:
        folder = unpack_bot_archive(tar_bytes(members, "gz"), into)
        build_uploaded_bot(folder, tag=tag, progress=said.append)
    except UploadError as error:
        return f"{error}\n{error.log}", said
    return "", said


def image_holds(client: Any, tag: str, secret: str) -> bool:
    """True when any file of the image holds ``secret``."""
    output = client.containers.run(tag, ["sh", "-c", f"grep -rsl --exclude-dir=proc "
                                                     f"--exclude-dir=sys --exclude-dir=dev "
                                                     f"'{secret}' / || true"],
                                   user="0", entrypoint=[], network_mode="none", remove=True)
    return bool(output.strip())


@pytest.mark.parametrize("trick", sorted(STEALS))
def test_upload_cannot_read_another_users_image(docker_required: Any,  # noqa: F811
                                                victim: dict[str, str], tmp_path: Path,
                                                attacker_tag: str, trick: str) -> None:
    """Each trick is refused (or builds without the image); the secret is nowhere in A's
    error, log or image."""
    dockerfile = STEALS[trick].replace("{tag}", victim["tag"]).replace("{id}", victim["id"])
    refusal, said = upload(tiny_bot(dockerfile=dockerfile), tmp_path / "a", attacker_tag)
    assert victim["secret"] not in refusal
    assert not any(victim["secret"] in line for line in said)
    try:
        docker_required.api.inspect_image(attacker_tag)
    except Exception:
        assert refusal, "no refusal and no image"
        return
    assert not image_holds(docker_required, attacker_tag, victim["secret"])


POLICY_MISSED = {
    "copy from the tag": HEAD + "COPY --from={tag} /bot/secret.txt /s\nRUN cat /s\n",
    "from the tag": "FROM {tag}\nRUN cat /bot/secret.txt\n",
    "from a second stage": HEAD + "FROM {tag} AS loot\nRUN cat /bot/secret.txt\n",
}


@pytest.mark.parametrize("trick", sorted(POLICY_MISSED))
def test_the_build_refuses_images_the_policy_missed(docker_required: Any,  # noqa: F811
                                                    victim: dict[str, str], tmp_path: Path,
                                                    attacker_tag: str, trick: str) -> None:
    """With the upload policy skipped, the guarded build itself refuses another image."""
    text = POLICY_MISSED[trick].replace("{tag}", victim["tag"])
    for member in tiny_bot(dockerfile=text):
        (tmp_path / member.name).write_bytes(member.data)
    said: list[str] = []
    base = docker_required.api.inspect_image("cardarena/python-base:latest")["Id"]
    with pytest.raises(BuildError, match=r"^bot a: the Dockerfile's line \d: (FROM|--from=).* "
                                         r"is not (the base image|an earlier stage)"):
        run_build(tmp_path, tag=attacker_tag, what="bot a", timeout_s=120, max_bytes=2**31,
                  buildargs={"BASE": base}, progress=said.append,
                  dockerfile=parse_dockerfile(text), base_image=base)
    assert said == []


def test_a_stage_from_another_image_stops_the_build(docker_required: Any,  # noqa: F811
                                                    victim: dict[str, str], tmp_path: Path,
                                                    attacker_tag: str) -> None:
    """Docker starting a stage from any image but the base (here a wrong BASE) stops the build
    before its first step, and the log says nothing after."""
    text = HEAD + "RUN cat /bot/secret.txt\n"
    for member in tiny_bot(dockerfile=text):
        (tmp_path / member.name).write_bytes(member.data)
    said: list[str] = []
    base = docker_required.api.inspect_image("cardarena/python-base:latest")["Id"]
    with pytest.raises(BuildError) as raised:
        run_build(tmp_path, tag=attacker_tag, what="bot a", timeout_s=120, max_bytes=2**31,
                  buildargs={"BASE": victim["id"]}, progress=said.append,
                  dockerfile=parse_dockerfile(text), base_image=base)
    assert str(raised.value) == (f"bot a: the Docker engine started a stage from image "
                                 f"{victim['id'][7:19]}, not the base image; the build was "
                                 f"stopped")
    assert victim["secret"] not in raised.value.log
    assert not any(victim["secret"] in line for line in said)
    assert not any(line.startswith("Step 3/") for line in said)


class Loopback(http.server.ThreadingHTTPServer):
    """An HTTP server on 127.0.0.1 that counts the requests it gets."""

    def __init__(self) -> None:
        """Listen on a free port."""
        self.requests: list[str] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            """Count and answer every GET."""

            def do_GET(self) -> None:
                """Record the path; answer with a small body."""
                outer.requests.append(self.path)
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"fetched")

            def log_message(self, *args: Any) -> None:
                """Quiet."""

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    """A counting HTTP server on the host's loopback, for the test's duration."""
    server = Loopback()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


FETCHES = [
    "ADD http://{host}/plain /x\n",
    "ADD http:\\/\\/{host}/escaped /x\n",
    'ADD ["http://{host}/json", "/x"]\n',
    "ADD --checksum=sha256:" + "0" * 64 + " http://{host}/checksum /x\n",
    "ARG U=http://{host}/variable\nADD $U /x\n",
    "ONBUILD ADD http://{host}/onbuild /x\n",
    "COPY http://{host}/copy /x\n",
    "RUN <<EOF\nEOF\nADD http://{host}/heredoc /x\n",
]


@pytest.mark.parametrize("line", FETCHES)
def test_upload_cannot_fetch_from_the_hosts_loopback(tmp_path: Path, attacker_tag: str,
                                                     loopback: Loopback, line: str) -> None:
    """ADD of a URL on 127.0.0.1, in any spelling, is refused; the server gets no request."""
    host = f"127.0.0.1:{loopback.server_address[1]}"
    refusal, _ = upload(tiny_bot(dockerfile=HEAD + line.replace("{host}", host)), tmp_path / "a",
                        attacker_tag)
    assert refusal
    assert loopback.requests == []


def test_the_build_refuses_add_the_policy_missed(docker_required: Any,  # noqa: F811
                                                 tmp_path: Path, attacker_tag: str,
                                                 loopback: Loopback) -> None:
    """With the upload policy skipped, the guarded build itself refuses ADD."""
    text = HEAD + f"ADD http://127.0.0.1:{loopback.server_address[1]}/missed /x\n"
    for member in tiny_bot(dockerfile=text):
        (tmp_path / member.name).write_bytes(member.data)
    base = docker_required.api.inspect_image("cardarena/python-base:latest")["Id"]
    with pytest.raises(BuildError, match=r"^bot a: the Dockerfile's line 3: ADD"):
        run_build(tmp_path, tag=attacker_tag, what="bot a", timeout_s=120,
                  buildargs={"BASE": base}, dockerfile=parse_dockerfile(text), base_image=base)
    assert loopback.requests == []
