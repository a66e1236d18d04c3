"""Base image variants: ``base`` in bot.toml, ``arena images build-base --variant``, and bot
images built on the base their folder names."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from docker.errors import ContainerError
from docker.errors import ImageNotFound as DockerImageNotFound
from typer.testing import CliRunner

from arena.bots import BotConfigError, BotManifest
from arena.bots.manifest import BASES
from arena.cli import app
from arena.sandbox import bases, labels
from arena.sandbox.errors import BuildError
from arena.sandbox.images import build_base, build_bot_image

from .conftest import SAMPLE_RANDOM

MANIFEST = """\
name = "{name}"
version = "1.0.0"
language = "python"
command = ["python", "bot.py"]
"""

DOCKERFILE = (SAMPLE_RANDOM / "Dockerfile").read_text(encoding="utf-8")
"""The random sample bot's Dockerfile: ``FROM ${BASE}``, the bot's folder, ``python bot.py``."""

IMPORTS = "import os, pyspiel, numpy, cardarena_sdk; print(os.getuid(), numpy.__version__)"


def bot_folder(root: Path, name: str, extra: str = "") -> Path:
    """A bot folder with a bot.toml (``extra`` appended to it) and a Dockerfile on ``BASE``."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(MANIFEST.format(name=name) + extra, encoding="utf-8")
    (folder / "Dockerfile").write_text(DOCKERFILE, encoding="utf-8")
    (folder / "bot.py").write_text("print('a bot')\n", encoding="utf-8")
    return folder


def run_python(client: Any, image: str, code: str) -> str:
    """Run ``python -c code`` in the image as its user without network; return its output."""
    output = client.containers.run(image, ["python", "-c", code], network_mode="none",
                                   remove=True, labels={labels.SANDBOX: "1"})
    return str(output.decode())


@pytest.fixture(scope="session")
def openspiel_image(base_image: str) -> str:
    """The openspiel base image's id, built once per session (on the base image)."""
    return build_base(variant="openspiel")


# --- without Docker ------------------------------------------------------------------------


def test_manifest_names_its_base(tmp_path: Path) -> None:
    """``base = "openspiel"`` is read; without the key a bot builds on the Python base."""
    chosen = BotManifest.load(bot_folder(tmp_path, "chosen", 'base = "openspiel"\n'))
    assert chosen.base == "openspiel"
    plain = BotManifest.load(bot_folder(tmp_path, "plain"))
    assert plain.base == "python"


@pytest.mark.parametrize(("value", "shown"), [('"tensorflow"', "'tensorflow'"), ('""', "''"),
                                              ('["openspiel"]', "['openspiel']")])
def test_manifest_refuses_an_unknown_base(tmp_path: Path, value: str, shown: str) -> None:
    """Any other base is one line naming the key, the value and the allowed ones."""
    folder = bot_folder(tmp_path, "odd", f"base = {value}\n")
    with pytest.raises(BotConfigError) as raised:
        BotManifest.load(folder)
    assert str(raised.value) == (f"bot {folder}: bot.toml 'base' must be one of python, "
                                 f"openspiel, got {shown}")


def test_every_manifest_base_is_a_variant() -> None:
    """The names bot.toml accepts are exactly the base images, the default first."""
    assert tuple(bases.VARIANTS) == BASES
    assert bases.VARIANTS[BASES[0]] == bases.PYTHON


def test_unknown_variant_is_one_line() -> None:
    """``--variant`` with an unknown name lists the known ones, before Docker is asked."""
    result = CliRunner().invoke(app, ["images", "build-base", "--variant", "tensorflow"])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == ["error: Invalid value for '--variant': unknown base image 'tensorflow'; "
                     "known: python, openspiel"]
    with pytest.raises(BuildError, match=r"^unknown base image variant 'tensorflow'; "
                                         r"known: python, openspiel$"):
        build_base(variant="tensorflow")


# --- with Docker ---------------------------------------------------------------------------


@pytest.mark.docker
def test_openspiel_image_imports_as_the_bot_user(docker_required: Any,
                                                 openspiel_image: str) -> None:
    """The variant imports pyspiel, numpy and the SDK as uid 10001 with no network."""
    uid, numpy_version = run_python(docker_required, bases.OPENSPIEL.tag, IMPORTS).split()
    assert (uid, numpy_version) == ("10001", "2.4.6")
    image = docker_required.api.inspect_image(bases.OPENSPIEL.tag)
    assert image["Id"] == openspiel_image
    assert image["Config"]["User"] == "10001:10001"
    assert image["Config"]["Labels"][labels.SANDBOX] == "1"


@pytest.fixture
def built(docker_required: Any) -> Iterator[list[str]]:
    """The refs of the images a test builds, removed afterwards."""
    refs: list[str] = []
    yield refs
    for ref in refs:
        with contextlib.suppress(DockerImageNotFound):
            docker_required.images.remove(ref, force=True)


@pytest.mark.docker
def test_bot_builds_on_the_base_its_manifest_names(docker_required: Any, openspiel_image: str,
                                                   tmp_path: Path, built: list[str]) -> None:
    """A bot with ``base = "openspiel"`` can import pyspiel; one without the key cannot, nor
    one built on a base given explicitly."""
    chosen = build_bot_image(bot_folder(tmp_path, "variant-openspiel-probe",
                                        'base = "openspiel"\n'))
    built.append(chosen.ref)
    assert run_python(docker_required, chosen.ref, IMPORTS).split()[0] == "10001"
    plain = build_bot_image(bot_folder(tmp_path, "variant-python-probe"))
    built.append(plain.ref)
    with pytest.raises(ContainerError) as raised:
        run_python(docker_required, plain.ref, "import pyspiel")
    assert b"No module named 'pyspiel'" in raised.value.stderr
    explicit = build_bot_image(bot_folder(tmp_path, "variant-explicit-probe",
                                          'base = "openspiel"\n'), base=bases.PYTHON.tag)
    built.append(explicit.ref)
    with pytest.raises(ContainerError):
        run_python(docker_required, explicit.ref, "import pyspiel")


@pytest.mark.docker
def test_missing_variant_image_says_how_to_build_it(docker_required: Any, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot whose base image is missing is told the command that builds that base."""
    absent = dataclasses.replace(bases.OPENSPIEL, tag="cardarena/python-openspiel:absent")
    monkeypatch.setitem(bases.VARIANTS, "openspiel", absent)
    folder = bot_folder(tmp_path, "variant-absent-probe", 'base = "openspiel"\n')
    with pytest.raises(BuildError) as raised:
        build_bot_image(folder)
    assert str(raised.value) == ("the base image cardarena/python-openspiel:absent is missing; "
                                 "run `arena images build-base --variant openspiel`")
