"""Folders of a bot's image read from the host: only a folder that one layer alone holds and no
other layer touches (a file under it, a whiteout, a link or an opaque folder on its way) is
served from that layer, read-only; a bot container plays with them, cannot write to them, and a
bot whose own layers change the venv reads its own venv."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from arena.agents import DockerSeat, PolicySeat
from arena.games import load_game
from arena.match.runner import run_duplicate
from arena.reasons import Reason
from arena.sandbox import shared_layers
from arena.sandbox.limits import SandboxLimits, container_options
from arena.sandbox.shared_layers import FOLDERS, layer_folders, shared_folders, shared_mounts
from arena.sandbox.socketdir import SocketDir

from .conftest import SAMPLE_RANDOM, BotImageFactory, our_containers
from .kept import KeptDockerSeat

BRISCOLA = load_game("briscola")


def base_layers(root: Path) -> list[Path]:
    """Layers shaped like the base image's and a bot's, top first: the bot's code, the bot
    user, the venv, the Debian root."""
    layers = [root / name for name in ("bot", "user", "venv", "debian")]
    for folder in ("debian/usr/lib/python3.11", "debian/usr/bin", "debian/usr/sbin", "debian/opt",
                   "venv/opt/venv/lib", "user/etc", "bot/bot"):
        (root / folder).mkdir(parents=True)
    (root / "debian/usr/bin/python3.11").write_text("")
    (root / "bot/bot/bot.py").write_text("")
    return layers


def served(root: Path, layers: list[Path]) -> dict[str, str]:
    """Image folder -> the layer (its name under ``root``) it is served from, the base image's
    three layers trusted."""
    trusted = {root / name for name in ("user", "venv", "debian")}
    return {target: source.relative_to(root).parts[0]
            for source, target in shared_folders(layers, trusted)}


def test_the_base_images_folders_are_served_from_the_layer_that_holds_each(
        tmp_path: Path) -> None:
    layers = base_layers(tmp_path)
    assert served(tmp_path, layers) == {"/usr/lib": "debian", "/usr/bin": "debian",
                                        "/opt/venv": "venv"}
    assert {target.lstrip("/") for _, target in shared_folders(layers, layers)} == set(FOLDERS)


@pytest.mark.parametrize("change", [
    "a file under it", "a whiteout file", "an opaque marker above", "an opaque xattr above",
    "a link in its place", "a file in place of a folder above"])
def test_a_layer_that_touches_the_venv_keeps_it_on_the_driver(tmp_path: Path,
                                                              change: str) -> None:
    layers = base_layers(tmp_path)
    bot = tmp_path / "bot"
    if change == "a file under it":
        (bot / "opt/venv/lib").mkdir(parents=True)
        (bot / "opt/venv/lib/extra.py").write_text("")
    elif change == "a whiteout file":
        (bot / "opt").mkdir()
        (bot / "opt/.wh.venv").write_text("")
    elif change == "an opaque marker above":
        (bot / "opt").mkdir()
        (bot / "opt/.wh..wh..opq").write_text("")
    elif change == "an opaque xattr above":
        (bot / "opt").mkdir()
        try:
            os.setxattr(bot / "opt", "user.overlay.opaque", b"y")
        except OSError as error:
            pytest.skip(f"no user xattrs on this file system: {error}")
    elif change == "a link in its place":
        (bot / "opt").mkdir()
        (bot / "opt/venv").symlink_to("/tmp")
    else:
        (bot / "opt").write_text("")
    assert served(tmp_path, layers) == {"/usr/lib": "debian", "/usr/bin": "debian"}


def test_a_folder_of_a_layer_that_is_not_a_base_images_is_not_served(tmp_path: Path) -> None:
    layers = base_layers(tmp_path)
    (tmp_path / "bot/usr/lib").mkdir(parents=True)
    (tmp_path / "debian/usr/lib").rename(tmp_path / "debian/usr/lib.moved")
    assert shared_folders(layers, layers)[0] == (tmp_path / "bot/usr/lib", "/usr/lib")
    assert served(tmp_path, layers) == {"/usr/bin": "debian", "/opt/venv": "venv"}


def test_a_folder_two_layers_hold_is_not_served(tmp_path: Path) -> None:
    layers = base_layers(tmp_path)
    (tmp_path / "bot/usr/lib").mkdir(parents=True)
    assert served(tmp_path, layers) == {"/usr/bin": "debian", "/opt/venv": "venv"}


def test_only_fuse_overlayfs_layers_are_read() -> None:
    data = {"UpperDir": "/d/top/diff", "LowerDir": "/d/mid/diff:/d/root/diff"}
    assert layer_folders({"GraphDriver": {"Name": "fuse-overlayfs", "Data": data}}) == [
        Path("/d/top/diff"), Path("/d/mid/diff"), Path("/d/root/diff")]
    assert layer_folders({"GraphDriver": {"Name": "overlay2", "Data": data}}) == []
    assert layer_folders({}) == []


def test_the_options_mount_each_served_folder_read_only(tmp_path: Path) -> None:
    mounts = ({"Target": "/usr/lib", "Source": "/x/usr/lib", "Type": "bind", "ReadOnly": False},)
    options = container_options("img", SandboxLimits(), tmp_path, {}, mounts=mounts)
    assert options["mounts"] == [{"Target": "/usr/lib", "Source": "/x/usr/lib", "Type": "bind",
                                  "ReadOnly": True}]
    assert "mounts" not in container_options("img", SandboxLimits(), tmp_path, {})


@pytest.mark.docker
@pytest.mark.usefixtures("fuse_driver")
def test_the_switch_turns_the_mounts_off(monkeypatch: pytest.MonkeyPatch,
                                         bot_image: BotImageFactory) -> None:
    image = bot_image(SAMPLE_RANDOM)
    assert shared_mounts(image.image_id) != ()
    monkeypatch.setenv(shared_layers.SWITCH_ENV, "off")
    assert shared_mounts(image.image_id) == ()


@pytest.fixture
def fuse_driver(docker_required: Any) -> Any:
    """The Docker client, when its engine's storage driver is one whose folders are served
    from the host (the test is skipped on another driver, which shares its page cache)."""
    driver = str(docker_required.info().get("Driver"))
    if driver not in shared_layers.DRIVERS:
        pytest.skip(f"the engine's {driver} driver shares its page cache already")
    return docker_required


@pytest.mark.docker
def test_a_container_reads_the_base_folders_from_the_host_and_cannot_write_them(
        fuse_driver: Any, bot_image: BotImageFactory, short_root: Path) -> None:
    client = fuse_driver
    image = bot_image(SAMPLE_RANDOM)
    mounts = shared_mounts(image.image_id)
    assert sorted(mount["Target"] for mount in mounts) == ["/opt/venv", "/usr/bin", "/usr/lib"]
    limits = SandboxLimits()
    folder = SocketDir.create(limits.uid, limits.gid, short_root, capped=False)
    script = ("import cardarena_sdk.server, os\n"
              "for path in ('/usr/lib/x', '/usr/bin/x', '/opt/venv/x'):\n"
              "    try:\n"
              "        open(path, 'w')\n"
              "        print('wrote', path)\n"
              "    except OSError as error:\n"
              "        print('refused', path, error.errno)\n")
    options = container_options(image.image_id, limits, folder.path, {}, mounts=mounts)
    options.update(command=["python", "-c", script])
    container = client.containers.create(**options)
    try:
        container.start()
        assert container.wait(timeout=60)["StatusCode"] == 0, container.logs()
        said = container.logs().decode().split("\n")
        mounted = {mount["Destination"]: mount for mount in
                   client.api.inspect_container(container.id)["Mounts"]}
    finally:
        container.remove(force=True)
        folder.remove()
    assert said[:3] == [f"refused {path} 30" for path in ("/usr/lib/x", "/usr/bin/x",
                                                          "/opt/venv/x")], said
    for target in ("/usr/lib", "/usr/bin", "/opt/venv"):
        assert mounted[target]["RW"] is False, mounted[target]
    for mount in mounts:
        assert not (Path(mount["Source"]) / "x").exists(), mount


@pytest.mark.docker
def test_a_bot_that_installs_into_its_venv_reads_its_own_venv(
        fuse_driver: Any, tmp_path: Path, short_root: Path) -> None:
    client = fuse_driver
    from arena.sandbox.images import build_bot_image
    (tmp_path / "bot.toml").write_text('name = "own-venv"\nversion = "0.1"\nlanguage = "python"\n'
                                       'command = ["python", "bot.py"]\ngames = ["*"]\n')
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "Dockerfile").write_text(
        "ARG BASE\nFROM ${BASE}\nUSER 0\nRUN echo mine > /opt/venv/marker\nUSER 10001:10001\n"
        f"CMD {json.dumps(['cat', '/opt/venv/marker'])}\n")
    image = build_bot_image(tmp_path)
    try:
        mounts = shared_mounts(image.image_id)
        assert sorted(mount["Target"] for mount in mounts) == ["/usr/bin", "/usr/lib"]
        limits = SandboxLimits()
        folder = SocketDir.create(limits.uid, limits.gid, short_root, capped=False)
        container = client.containers.create(**container_options(
            image.image_id, limits, folder.path, {}, mounts=mounts))
        try:
            container.start()
            assert container.wait(timeout=60)["StatusCode"] == 0
            assert container.logs() == b"mine\n"
        finally:
            container.remove(force=True)
            folder.remove()
    finally:
        client.api.remove_image(image.image_id, force=True)


@pytest.mark.docker
def test_the_arenas_bot_container_plays_on_the_served_folders(
        fuse_driver: Any, bot_image: BotImageFactory, leftovers: Path) -> None:
    client = fuse_driver
    image = bot_image(SAMPLE_RANDOM)
    seen: dict[str, dict[str, Any]] = {}
    done = threading.Event()

    def watch() -> None:
        """Note the mounts of this process's bot containers while the deal runs."""
        while not done.wait(0.01):
            for container in our_containers(client):
                try:
                    found = client.api.inspect_container(container.id)
                except Exception:
                    continue
                seen.update({mount["Destination"]: mount for mount in found["Mounts"]})

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        seat = KeptDockerSeat(DockerSeat(image, temp_root=leftovers))
        result = run_duplicate(BRISCOLA, 5, [seat, PolicySeat("random")])
    finally:
        done.set()
        watcher.join()
    assert [deal.reasons for deal in result.deals] == [(Reason.OK, Reason.OK)] * 2
    assert {"/usr/lib", "/usr/bin", "/opt/venv"} <= set(seen), sorted(seen)
    assert all(seen[target]["RW"] is False for target in ("/usr/lib", "/usr/bin", "/opt/venv"))
