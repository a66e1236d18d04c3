"""`arena bot build` (a local folder) goes through the build guard too: a step that fills the disk
with sparse files or writes past the limit is stopped before its layer is committed, and a guarded
build's own rendering is what Docker runs."""

from __future__ import annotations

import contextlib
import re
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox.errors import BuildError
from arena.sandbox.images import BASE_IMAGE, build_bot_image, image_tag

pytestmark = pytest.mark.alone

ALLOWANCE = 128 * 2**20
MARGIN = 256 * 2**20

BOT_TOML = """\
name = "disk-hog-{suffix}"
version = "0.1.0"
language = "python"
command = ["python", "bot.py"]
"""

ATTACKS = {
    "sparse": "RUN for i in $(seq 40); do truncate -s 100M /tmp/sparse$i; done\n",
    "write loop": "RUN while true; do head -c 16M /dev/zero >> /tmp/grow; done\n",
}


def peak_use(folder: str, work: Any) -> tuple[int, BaseException | None]:
    """Run ``work`` while sampling ``folder``'s free space every 10 ms; the most it fell, and
    what ``work`` raised."""
    start = shutil.disk_usage(folder).free
    least = [start]
    done = threading.Event()

    def sample() -> None:
        """Keep the least free space seen."""
        while not done.wait(0.01):
            least[0] = min(least[0], shutil.disk_usage(folder).free)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    raised: BaseException | None = None
    try:
        work()
    except BaseException as error:
        raised = error
    finally:
        done.set()
        sampler.join()
    return start - least[0], raised


@pytest.mark.usefixtures("base_image")
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_local_build_is_stopped_at_the_limit(docker_required: Any, tmp_path: Path,
                                             attack: str) -> None:
    """A local bot's hostile step is refused naming the limit, within limit plus margin."""
    client = docker_required
    suffix = attack.replace(" ", "-")
    (tmp_path / "bot.toml").write_text(BOT_TOML.format(suffix=suffix))
    (tmp_path / "bot.py").write_text("print('never run')\n")
    (tmp_path / "Dockerfile").write_text("ARG BASE\nFROM ${BASE}\n" + ATTACKS[attack])
    limit = int(client.api.inspect_image(BASE_IMAGE)["Size"]) + ALLOWANCE
    peak, raised = peak_use(str(client.info()["DockerRootDir"]),
                            lambda: build_bot_image(tmp_path, max_bytes=limit, timeout_s=300))
    try:
        assert isinstance(raised, BuildError), raised
        assert re.fullmatch(rf"bot disk-hog-{suffix}: the image grew to [\d.]+ MiB at the "
                            rf"Dockerfile's line 3 \(RUN .*\), over the limit of "
                            rf"{limit / 2**20:.1f} MiB; the build was stopped", str(raised))
        assert peak <= ALLOWANCE + MARGIN, f"the disk grew by {peak / 2**20:.0f} MiB"
    finally:
        with contextlib.suppress(Exception):
            client.api.remove_image(image_tag(f"disk-hog-{suffix}", "0.1.0"), force=True)
