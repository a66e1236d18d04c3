"""Fixtures for the registry tests: a private ``docker-registry`` (Debian's package) on
127.0.0.1 with a free port and a temporary storage folder, and bot images of their own, pushed
and deleted under their own names only.

Without the ``docker-registry`` program the tests skip, except under ``CI=true``, where they
fail. The Docker engine trusts registries on 127.0.0.0/8 without TLS (``docker info``,
"Insecure Registries"), so nothing on the machine needs configuring.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import socket
import subprocess
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox.conftest import (  # noqa: F401 - fixtures
    SAMPLE_RANDOM,
    base_image,
    leftovers,
    require_docker,
    short_root,
)

from arena.sandbox.images import BotImage, build_bot_image, inspect_bot_image

REGISTRY_PROGRAM = "docker-registry"
"""Debian's registry (the ``docker-registry`` package: distribution's ``registry serve``)."""

READY_WITHIN_S = 30.0
"""The longest a registry may take to answer after it starts (never reached)."""

TEST_LABEL = "cardarena.test.registry"
"""The label of the images these tests build, so that they are told apart and removed."""

CONFIG = """\
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: {storage}
  delete:
    enabled: true
http:
  addr: 127.0.0.1:{port}
"""


def unavailable(reason: str) -> None:
    """Skip the test, or fail it under CI=true, where the registry must be there."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{REGISTRY_PROGRAM} is required under CI: {reason}")
    pytest.skip(reason)


def free_port() -> int:
    """A TCP port nothing listens on at the moment, on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PrivateRegistry:
    """A ``docker-registry serve`` of our own: started, stopped and started again on the same
    port and storage."""

    def __init__(self, program: str, folder: Path) -> None:
        """Prepare the storage folder and a port; nothing runs yet."""
        self.program = program
        self.folder = folder
        self.storage = folder / "storage"
        self.storage.mkdir()
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        """``127.0.0.1:PORT``, the registry as Docker names it."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the registry and wait until it answers (another port when this one was
        taken meanwhile)."""
        for _ in range(3):
            config = self.folder / "config.yml"
            config.write_text(CONFIG.format(storage=self.storage, port=self.port))
            log = (self.folder / "registry.log").open("ab")
            with log:
                self.process = subprocess.Popen([self.program, "serve", str(config)],
                                                stdout=log, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL)
            if self._wait_ready():
                return
            self.port = free_port()
        raise RuntimeError(f"the registry did not start: {self.log()}")

    def _wait_ready(self) -> bool:
        """True once ``/v2/`` answers; False when the registry exited (its port was taken)."""
        assert self.process is not None
        deadline = time.monotonic() + READY_WITHIN_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            with (contextlib.suppress(OSError),
                  urllib.request.urlopen(f"http://{self.address}/v2/", timeout=1) as reply):
                if reply.status == 200:
                    return True
            time.sleep(0.02)
        raise RuntimeError(f"the registry did not answer within {READY_WITHIN_S} s: "
                           f"{self.log()}")

    def stop(self) -> None:
        """Stop the registry (its storage stays)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def log(self) -> str:
        """What the registry wrote."""
        path = self.folder / "registry.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def blob(self, digest: str) -> Path:
        """Where the registry keeps the blob (a manifest or a layer) of ``digest``."""
        hexa = digest.removeprefix("sha256:")
        return self.storage / "docker/registry/v2/blobs/sha256" / hexa[:2] / hexa / "data"

    def has_manifest(self, repository: str, digest: str) -> bool:
        """True when the registry serves the manifest ``digest`` of ``repository`` (asked over
        HTTP, not through Docker)."""
        name = repository.removeprefix(f"{self.address}/")
        request = urllib.request.Request(
            f"http://{self.address}/v2/{name}/manifests/{digest}", method="HEAD",
            headers={"Accept": "application/vnd.docker.distribution.manifest.v2+json, "
                               "application/vnd.oci.image.manifest.v1+json"})
        try:
            with urllib.request.urlopen(request, timeout=5) as reply:
                return bool(reply.status == 200)
        except urllib.error.HTTPError:
            return False


@pytest.fixture(scope="session")
def registry() -> Iterator[PrivateRegistry]:
    """A private registry for the session (skipped without the program, failed under CI)."""
    program = shutil.which(REGISTRY_PROGRAM)
    if program is None:
        unavailable(f"{REGISTRY_PROGRAM} is not installed (Debian's docker-registry package)")
    assert program is not None
    folder = Path(tempfile.mkdtemp(prefix="cat-registry-", dir="/tmp"))
    server = PrivateRegistry(program, folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def sample_image(base_image: str) -> BotImage:  # noqa: F811
    """The random sample bot's image (shared with other tests: never pushed or deleted)."""
    return build_bot_image(SAMPLE_RANDOM)


StampedImage = Callable[[], BotImage]


@pytest.fixture(scope="session")
def stamped_image(sample_image: BotImage) -> Iterator[StampedImage]:
    """Make an image of the sample bot with a layer of its own (so that deleting it deletes
    something and pulling it fetches something), under a test name; all removed at the end."""
    client = require_docker()
    made: list[str] = []

    def make() -> BotImage:
        """A new stamped image, tagged ``cardarena-test-registry/random-HEX:1``."""
        stamp = uuid.uuid4().hex
        tag = f"cardarena-test-registry/random-{stamp[:12]}:1"
        context = io.BytesIO()
        with tarfile.open(fileobj=context, mode="w") as tar:
            for name, data in (("Dockerfile", f"FROM {sample_image.image_id}\n"
                                              "COPY stamp /stamp\n".encode()),
                               ("stamp", stamp.encode())):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        context.seek(0)
        for event in client.api.build(fileobj=context, custom_context=True, tag=tag, rm=True,
                                      forcerm=True, network_mode="none", decode=True,
                                      labels={TEST_LABEL: "1"}):
            assert "error" not in event, event
        image = inspect_bot_image(tag)
        made.append(image.image_id)
        return image

    yield make
    for image_id in made:
        remove_image(image_id)


def remove_image(image_id: str) -> None:
    """Delete one of our images from the engine, with every tag and digest it has here."""
    from docker.errors import ImageNotFound

    with contextlib.suppress(ImageNotFound):
        require_docker().images.remove(image_id, force=True)


def untag(ref: str) -> None:
    """Remove one of our names (a tag or a digest) from the engine; the image stays while it
    has other names (the shared images keep theirs)."""
    from docker.errors import ImageNotFound

    with contextlib.suppress(ImageNotFound):
        require_docker().images.remove(ref)


def is_local(ref: str) -> bool:
    """True when the engine has an image of this name, digest or id."""
    from docker.errors import ImageNotFound

    try:
        require_docker().images.get(ref)
    except ImageNotFound:
        return False
    return True


def one_line(error: BaseException) -> str:
    """The error's message, checked to be a single line."""
    text = str(error)
    assert "\n" not in text and text.strip() == text and text, repr(text)
    return text


Pushed = Callable[[], BotImage]


@pytest.fixture(scope="session")
def pushed(registry: PrivateRegistry, stamped_image: StampedImage) -> Pushed:
    """The first call pushes a stamped image to the session's registry; every call returns
    it pinned (the local copy may have been deleted since)."""
    from arena.sandbox.registry import push_image

    kept: list[BotImage] = []

    def get() -> BotImage:
        """The pinned image, pushed once."""
        if not kept:
            kept.append(push_image(stamped_image(), registry.address))
        return kept[0]

    return get


@pytest.fixture(autouse=True)
def docker_engine() -> Any:
    """Every registry test needs the Docker engine (skipped without one, failed under CI)."""
    return require_docker()
