"""Offline images: the base image, bot images built from folders, and their one-line errors."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.bots import BotConfigError
from arena.sandbox import images, labels, rootfs, wheels
from arena.sandbox.errors import BuildError, ImageNotFound
from arena.sandbox.images import (
    BASE_IMAGE,
    BotImage,
    build_bot_image,
    image_tag,
    inspect_bot_image,
)

HERE = Path(__file__).resolve().parent
BOTS = HERE / "bots"
ROOT = HERE.parents[1]
SAMPLE_RANDOM = ROOT / "sample_bots" / "python" / "random"


def step_containers(client: Any, command_part: str) -> list[str]:
    """Containers (any state) whose command mentions ``command_part``: a build step left over."""
    found = []
    for container in client.api.containers(all=True):
        if command_part in str(container.get("Command", "")):
            found.append(container["Id"])
    return found


# --- without Docker ------------------------------------------------------------------------


def test_image_tag_is_docker_safe() -> None:
    """Bot names and versions become a valid ``cardarena-bot/<name>:<version>`` tag."""
    assert image_tag("random", "1.0.0") == "cardarena-bot/random:1.0.0"
    assert image_tag("My Bot!", "1.0+local") == "cardarena-bot/my-bot:1.0-local"
    assert image_tag("__", "..") == "cardarena-bot/bot:latest"
    assert image_tag("a._b", "v1") == "cardarena-bot/a-b:v1"


def test_bot_image_from_labels_and_games() -> None:
    """Labels give the bot; an unlabelled image is named by its ref and plays every game."""
    image = BotImage.from_labels("cardarena-bot/good:1.2.0", "sha256:abc", {
        labels.BOT_NAME: "good", labels.BOT_VERSION: "1.2.0",
        labels.BOT_GAMES: "briscola,scopa", labels.BOT_LANGUAGE: "rust"})
    assert (image.name, image.version, image.games) == ("good", "1.2.0", ("briscola", "scopa"))
    assert image.language == "rust"
    assert image.plays("scopa") and not image.plays("tressette")
    image.check_game("briscola")
    with pytest.raises(BotConfigError, match=r"bot good \(image cardarena-bot/good:1.2.0\) "
                                             r"does not play tressette"):
        image.check_game("tressette")
    assert image.describe() == {"kind": "docker", "image": "cardarena-bot/good:1.2.0",
                                "image_id": "sha256:abc", "name": "good", "version": "1.2.0"}
    bare = BotImage.from_labels("someone/else:3", "sha256:def", {})
    assert (bare.name, bare.version, bare.games, bare.language) == (
        "someone/else:3", "", ("*",), "")
    assert bare.plays("briscola")


def test_folder_without_manifest(tmp_path: Path) -> None:
    """A folder without bot.toml is refused before Docker is asked anything."""
    (tmp_path / "Dockerfile").write_text("FROM scratch\n")
    with pytest.raises(BotConfigError, match=r"no bot\.toml in this folder"):
        build_bot_image(tmp_path)


def test_folder_without_dockerfile() -> None:
    """A folder without a Dockerfile gets one line pointing at the docs."""
    folder = BOTS / "no-dockerfile"
    with pytest.raises(BotConfigError) as raised:
        build_bot_image(folder)
    assert str(raised.value) == (f"bot no-dockerfile: no Dockerfile in {folder}; "
                                 f"see docs/sandbox.md")


def test_apt_mirror_from_deb822_and_one_line_sources(tmp_path: Path) -> None:
    """The main Debian archive is read from apt's sources; security archives are skipped."""
    sources_dir = tmp_path / "sources.list.d"
    sources_dir.mkdir()
    (sources_dir / "debian.sources").write_text(
        "Types: deb\n# a comment\nURIs: http://mirror.example/debian-security\n"
        "Suites: bookworm-security\nComponents: main\n\n"
        "Types: deb\nURIs: http://mirror.example/debian/\nSuites: bookworm\n")
    (sources_dir / "other.sources.disabled").write_text(
        "Types: deb\nURIs: http://disabled.example/debian\n")
    missing = tmp_path / "sources.list"
    assert rootfs.apt_mirror(missing, sources_dir) == "http://mirror.example/debian"
    missing.write_text("# old style\ndeb [arch=amd64] http://one.example/debian bookworm main\n")
    assert rootfs.apt_mirror(missing, sources_dir) == "http://one.example/debian"
    assert rootfs.apt_mirror(tmp_path / "none", tmp_path / "none.d") == rootfs.DEFAULT_MIRROR


def test_debootstrap_errors_name_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without debootstrap, or without root, the error says what to do."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(BuildError, match=r"`apt-get install debootstrap`"):
        rootfs.debootstrap_root(tmp_path / "root", rootfs.DEFAULT_MIRROR, print)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/sbin/{name}")
    monkeypatch.setattr(rootfs.os, "geteuid", lambda: 1000)
    with pytest.raises(BuildError, match=r"needs root .*as root"):
        rootfs.debootstrap_root(tmp_path / "root", rootfs.DEFAULT_MIRROR, print)


def test_pruning_empties_what_no_bot_reads_and_keeps_the_rest(tmp_path: Path) -> None:
    """The pruned folders stay, empty, and Debian's sitecustomize is gone; Python's files, the
    venv wheels and a link that points out of the root are left alone."""
    root = tmp_path / "root"
    (root / "usr/share/doc/python3").mkdir(parents=True)
    (root / "usr/share/doc/python3/copyright").write_bytes(b"x" * 1000)
    (root / "var/lib/apt/lists").mkdir(parents=True)
    (root / "var/lib/apt/lists/deb.debian.org_Packages").write_bytes(b"p" * 5000)
    (root / "usr/share/python-wheels").mkdir(parents=True)
    (root / "usr/share/python-wheels/pip.whl").write_bytes(b"w")
    (root / "usr/lib/python3.11").mkdir(parents=True)
    (root / "usr/lib/python3.11/os.py").write_text("")
    (root / "etc/python3.11").mkdir(parents=True)
    (root / "etc/python3.11/sitecustomize.py").write_bytes(b"s" * 100)
    (root / "usr/lib/python3.11/sitecustomize.py").symlink_to("/etc/python3.11/sitecustomize.py")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept").write_text("")
    (root / "usr/share/locale").symlink_to(outside)
    link_size = (root / "usr/lib/python3.11/sitecustomize.py").lstat().st_size
    assert rootfs.prune_root(root) == 6100 + link_size
    assert not (root / "etc/python3.11/sitecustomize.py").exists()
    assert not (root / "usr/lib/python3.11/sitecustomize.py").is_symlink()
    assert list((root / "usr/share/doc").iterdir()) == []
    assert list((root / "var/lib/apt/lists").iterdir()) == []
    assert (root / "usr/share/python-wheels/pip.whl").is_file()
    assert (root / "usr/lib/python3.11/os.py").is_file()
    assert (outside / "kept").is_file()


def test_wheel_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Wheels come from this checkout and are cached under $XDG_CACHE_HOME."""
    assert wheels.project_root() == ROOT
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert wheels.wheel_cache() == tmp_path / "cardarena" / "wheels"


# --- with Docker ---------------------------------------------------------------------------


def test_root_image_is_reused(docker_required: Any, base_image: str,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """An existing Debian root skips debootstrap; asking for a rebuild makes it again."""
    made: list[str] = []
    monkeypatch.setattr(images, "build_root", lambda image, **options: made.append(image))
    said: list[str] = []
    assert images.ensure_root(progress=said.append) is False
    assert made == [] and "debootstrap skipped" in said[0]
    assert images.ensure_root(rebuild=True, progress=said.append) is True
    assert made == [images.ROOT_IMAGE]


def test_base_image_runs_the_sdk_as_the_bot_user(docker_required: Any, base_image: str) -> None:
    """The base image imports the SDK and grpc as uid 10001 with no network."""
    client = docker_required
    output = client.containers.run(
        BASE_IMAGE, ["python", "-c", "import os, cardarena_sdk, grpc; "
                                     "print(os.getuid(), os.getgid(), grpc.__version__)"],
        network_mode="none", remove=True, labels={labels.SANDBOX: "1"})
    uid, gid, _ = output.decode().split()
    assert (uid, gid) == ("10001", "10001")
    config = client.api.inspect_image(BASE_IMAGE)["Config"]
    assert config["User"] == "10001:10001"
    listed = client.containers.run(
        BASE_IMAGE, ["sh", "-c", " ".join(f"ls -A /{folder};" for folder in rootfs.PRUNED)],
        network_mode="none", remove=True, labels={labels.SANDBOX: "1"})
    assert listed.decode().split() == [], "the base image holds what the root was pruned of"
    assert "PYTHONUNBUFFERED=1" in config["Env"]
    assert "ARENA_ENGINE=python" in config["Env"]
    started = client.containers.run(
        BASE_IMAGE, ["sh", "-c", "python -c 'import sys; print(len(sys.modules), "
                                 "\"_distutils_hack\" in sys.modules)' && "
                                 "python -m pip --version >/dev/null && echo pip"],
        network_mode="none", remove=True, labels={labels.SANDBOX: "1"})
    assert started.decode().split()[1:] == ["False", "pip"], "no start-up hook, pip kept"
    serving = client.containers.run(
        BASE_IMAGE, ["python", "-c", "from cardarena_sdk.native_server import native_serving; "
                                     "print(native_serving())"],
        network_mode="none", remove=True, labels={labels.SANDBOX: "1"})
    assert serving.decode().split() == [str(shutil.which("cargo") is not None)], (
        "bots in the image serve through the compiled transport when cargo built it")
    assert config["Labels"][labels.SANDBOX] == "1"


def test_sample_bot_builds_labelled_and_repeatably(docker_required: Any, base_image: str) -> None:
    """A bot folder builds to a labelled image, and the same id a second time."""
    first = build_bot_image(SAMPLE_RANDOM)
    second = build_bot_image(SAMPLE_RANDOM)
    assert first == second
    assert first.ref == "cardarena-bot/random:1.0.0"
    assert first.image_id.startswith("sha256:")
    assert inspect_bot_image(first.ref) == first
    image_labels = docker_required.api.inspect_image(first.ref)["Config"]["Labels"]
    assert image_labels[labels.SANDBOX] == "1"
    assert image_labels[labels.BOT_NAME] == "random"


def test_bot_games_come_from_the_manifest(docker_required: Any, base_image: str) -> None:
    """The games label lists the manifest's games, and inspection reads them back."""
    image = build_bot_image(BOTS / "good")
    assert image.games == ("briscola", "scopa")
    assert inspect_bot_image(image.ref).games == ("briscola", "scopa")
    assert image.language == inspect_bot_image(image.ref).language == "python"
    assert inspect_bot_image(image.image_id).name == "good"


def test_failing_dockerfile_names_the_step(docker_required: Any, base_image: str) -> None:
    """A failing step is named in the message; its output is in the log excerpt."""
    with pytest.raises(BuildError) as raised:
        build_bot_image(BOTS / "failing")
    message = str(raised.value)
    assert message.startswith("bot failing: the build failed at the Dockerfile's line ")
    assert "(RUN echo \"checking the bot\"" in message
    assert "returned a non-zero code: 1" in message
    assert "\n" not in message
    assert "checking the bot" in raised.value.log
    assert len(raised.value.log.splitlines()) <= 20


def test_missing_base_image(docker_required: Any) -> None:
    """Our base image cannot be pulled: its absence says how to build it."""
    with pytest.raises(BuildError) as raised:
        build_bot_image(BOTS / "good", base="cardarena/python-base:missing")
    assert str(raised.value) == ("the base image cardarena/python-base:missing is missing; "
                                 "run `arena images build-base`")


def test_build_growing_too_large_is_stopped(docker_required: Any, base_image: str) -> None:
    """A step that writes past the size limit is killed, and nothing is left tagged."""
    client = docker_required
    limit = int(client.api.inspect_image(BASE_IMAGE)["Size"]) + 32 * 2**20
    with pytest.raises(BuildError) as raised:
        build_bot_image(BOTS / "too-large", max_bytes=limit)
    message = str(raised.value)
    assert message.startswith("bot too-large: the image grew to ")
    assert f"over the limit of {limit / 2**20:.1f} MiB; the build was stopped" in message
    assert step_containers(client, "/tmp/blob") == []
    with pytest.raises(ImageNotFound):
        inspect_bot_image(image_tag("too-large", "1.2.0"))


def test_image_over_the_limit_is_refused(docker_required: Any, base_image: str) -> None:
    """An image larger than max_bytes is an error naming its size and the limit."""
    with pytest.raises(BuildError, match=r"^bot good: the image (is|grew to) [\d.]+ MiB.*"
                                         r"over the limit of 1\.0 MiB"):
        build_bot_image(BOTS / "good", max_bytes=2**20)


def test_build_past_its_time_limit_is_stopped(docker_required: Any, base_image: str) -> None:
    """A step that never ends is killed at the time limit, and its container is gone."""
    client = docker_required
    with pytest.raises(BuildError) as raised:
        build_bot_image(BOTS / "slow", timeout_s=5)
    assert str(raised.value).startswith("bot slow: the build ran past its time limit of 5 s")
    assert str(raised.value).endswith("; it was stopped")
    assert step_containers(client, "sleep 600") == []
    with pytest.raises(ImageNotFound):
        inspect_bot_image(image_tag("slow", "1.2.0"))


def test_inspect_missing_image(docker_required: Any) -> None:
    """A name with no local image gives one line saying how to build it."""
    with pytest.raises(ImageNotFound) as raised:
        inspect_bot_image("cardarena-bot/no-such-bot:0")
    assert str(raised.value) == ("no Docker image cardarena-bot/no-such-bot:0 on this machine; "
                                 "build it with `arena bot build PATH`")
    with pytest.raises(ImageNotFound, match="'Not A Name' is not a Docker image name"):
        inspect_bot_image("Not A Name")


def test_inspect_image_without_bot_labels(docker_required: Any, base_image: str) -> None:
    """An image we did not build as a bot is named by its ref and plays every game."""
    image = inspect_bot_image(BASE_IMAGE)
    assert (image.name, image.version, image.games) == (BASE_IMAGE, "", ("*",))
    assert image.image_id == base_image
