"""Hostile uploads that try to fill the host's disk while their image builds: each is refused
with a clear error, the disk the Docker engine uses never grows much past the image limit, and
nothing is left behind."""

from __future__ import annotations

import contextlib
import re
import shutil
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox.conftest import base_image, docker_required  # noqa: F401  (fixtures used by name)

from arena.server.uploads import UploadError, UploadLimits, build_uploaded_bot, unpack_bot_archive

from .archives import tar_bytes, tiny_bot

pytestmark = pytest.mark.alone

ALLOWANCE = 128 * 2**20
"""What a test build may add to the base image."""
MARGIN = 256 * 2**20
"""How far past the limit the disk may grow before a build is stopped (see docs/sandbox.md)."""
SAMPLE_S = 0.01

HEAD = "ARG BASE\nFROM ${BASE}\nUSER 0\n"
ATTACKS = {
    # fallocate(2) is refused under the guard; glibc's posix_fallocate then writes the blocks.
    "fallocate 8 GiB": HEAD + "RUN fallocate -l 8G /big; python3 -c \"import os; "
                              "os.posix_fallocate(os.open('/big2', os.O_CREAT | os.O_WRONLY), "
                              "0, 8 << 30)\"\n",
    # One sparse file past the file-size limit, then many under it: nothing on disk while the
    # step runs, all of it once the layer is committed.
    "sparse files": HEAD + "RUN truncate -s 100G /huge; for i in $(seq 40); "
                           "do truncate -s 100M /sparse$i; done\n",
    "many files": HEAD + "RUN mkdir /many && cd /many && seq 1 100000 | xargs -n 500 sh -c "
                         "'for f; do head -c 64K /dev/zero > $f; done' files\n",
    "a file written in a loop": HEAD + "RUN while true; do head -c 16M /dev/zero >> /grow; "
                                       "done\n",
    # Lines that look like the builder's own, printed by the step, change nothing.
    "fake builder lines": HEAD + "RUN echo 'Step 9/9 : CMD x'; echo ' ---> 0123456789ab'; "
                                 "echo 'Removing intermediate container 0123456789ab'; "
                                 "while true; do head -c 16M /dev/zero >> /grow; done\n",
    # Each step stays under the limit; together (the first layer kept under the second's
    # deletion) they are over it.
    "many layers": HEAD + "RUN head -c 100M /dev/urandom > /a\n"
                          "RUN rm /a && head -c 100M /dev/urandom > /b\n",
}


class DiskWatch:
    """Samples the free space of the Docker engine's data folder in a thread; ``peak`` is the
    most it fell below where it started."""

    def __init__(self, folder: str) -> None:
        """Start sampling ``folder``'s file system."""
        self.folder = folder
        self.start_free = shutil.disk_usage(folder).free
        self.least_free = self.start_free
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        """Keep the least free space seen."""
        while not self._stop.wait(SAMPLE_S):
            self.least_free = min(self.least_free, shutil.disk_usage(self.folder).free)

    def stop(self) -> int:
        """Stop sampling; the peak use in bytes."""
        self._stop.set()
        self._thread.join()
        return self.start_free - self.least_free


@pytest.fixture
def tag(docker_required: Any) -> Iterator[str]:  # noqa: F811
    """A fresh image tag, removed after the test."""
    name = f"cardarena-bot/disk-test-{uuid.uuid4().hex[:12]}:0.1.0"
    yield name
    with contextlib.suppress(Exception):
        docker_required.api.remove_image(name, force=True)


@pytest.mark.usefixtures("base_image")
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_disk_filling_build_is_stopped_at_the_limit(docker_required: Any,  # noqa: F811
                                                     tmp_path: Path, tag: str,
                                                     attack: str) -> None:
    """The build is refused naming the limit; the disk never grows past limit plus margin."""
    client = docker_required
    base_size = int(client.api.inspect_image("cardarena/python-base:latest")["Size"])
    limit = base_size + ALLOWANCE
    folder = unpack_bot_archive(tar_bytes(tiny_bot(dockerfile=ATTACKS[attack]), "gz"),
                                tmp_path / "upload")
    said: list[str] = []
    watch = DiskWatch(str(client.info()["DockerRootDir"]))
    try:
        with pytest.raises(UploadError) as raised:
            build_uploaded_bot(folder, tag=tag, progress=said.append,
                               limits=UploadLimits(image_bytes=limit, build_timeout_s=300))
    finally:
        peak = watch.stop()
    message = str(raised.value)
    print(f"{attack}: peak {peak / 2**20:.0f} MiB; {message}")
    assert peak <= ALLOWANCE + MARGIN, f"the disk grew by {peak / 2**20:.0f} MiB"
    assert re.fullmatch(rf"bot tiny: the image grew to [\d.]+ MiB at the Dockerfile's line \d "
                        rf"\(RUN .*\), over the limit of {limit / 2**20:.1f} MiB; the build was "
                        rf"stopped", message), message
    assert leftover_containers(client, ATTACKS[attack]) == []
    made = {line.split()[-1] for line in said if re.fullmatch(r" ---> [0-9a-f]{12}", line)}
    assert [image for image in made if image_exists(client, image)] == [
        client.api.inspect_image("cardarena/python-base:latest")["Id"][7:19]]


def leftover_containers(client: Any, dockerfile: str) -> list[str]:
    """Containers (any state) running a RUN step of ``dockerfile``."""
    commands = [line.removeprefix("RUN ") for line in dockerfile.splitlines()
                if line.startswith("RUN ")]
    return [container["Id"] for container in client.api.containers(all=True)
            if any(command[:40] in str(container.get("Command", "")) for command in commands)]


def image_exists(client: Any, image: str) -> bool:
    """True when the image is still there."""
    try:
        client.api.inspect_image(image)
    except Exception:
        return False
    return True
