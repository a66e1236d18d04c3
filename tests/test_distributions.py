"""The two distributions of the repository and the SDK: what each wheel holds and requires.

The engine (``engine/pyproject.toml``, ``card-arena-engine``) holds games, policies, protocol,
bridges and the package's root; the platform (``pyproject.toml``, ``card-arena``) the rest of
``arena`` and depends on the engine; the SDK depends on the engine alone. Each test builds the
wheels it reads
the way the base image's wheel set is built (``arena.sandbox.wheels``).
"""

from __future__ import annotations

import ast
import email.parser
import importlib.metadata
import json
import platform
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest

import arena
from arena.sandbox import wheels

ROOT = Path(__file__).resolve().parents[1]
ENGINE = "card-arena-engine"
ENGINE_PACKAGES = ("games", "policies", "protocol", "bridges")
"""The engine's packages; with them the engine holds the files of ``arena/`` itself: the
package's root (it turns gRPC's fork support off before gRPC loads), its typing marker and the
shared modules beside it."""
ENGINE_REQUIRES = {"grpcio", "protobuf", "mypy-extensions"}
NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def normalized(requirement: str) -> str:
    """The project name of a requirement, normalized (PEP 503)."""
    match = NAME.match(requirement)
    assert match is not None, requirement
    return re.sub(r"[-_.]+", "-", match[1]).lower()


def pyproject(folder: Path) -> dict[str, Any]:
    """The ``[project]`` table of a folder's ``pyproject.toml``."""
    with (folder / "pyproject.toml").open("rb") as file:
        table: dict[str, Any] = tomllib.load(file)["project"]
    return table


def wheel_files(wheel: Path) -> set[str]:
    """The names of the files a wheel installs outside its ``.dist-info``."""
    with zipfile.ZipFile(wheel) as archive:
        return {name for name in archive.namelist() if ".dist-info/" not in name}


def wheel_requires(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel's metadata (without extras' requirements)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(archive.read(name).decode("utf-8"))
    return [line for line in metadata.get_all("Requires-Dist") or [] if "extra ==" not in line]


def in_engine(name: str) -> bool:
    """True for a file of ``arena`` (a path inside a wheel) that the engine holds."""
    parts = name.split("/")
    return parts[0] == "arena" and (len(parts) == 2 or parts[1] in ENGINE_PACKAGES)


def imported_modules(source: str) -> set[str]:
    """The ``arena`` modules a module's source imports (absolute imports), with each name
    imported from one of them that is a module of the checkout (``from arena import x``)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names
                         if module_path(f"{node.module}.{alias.name}", ROOT))
    return {name for name in names if name.split(".")[0] == "arena"}


def module_path(module: str, root: Path) -> Path | None:
    """The file of a module or package under ``root``, or None."""
    path = root.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def source_modules() -> set[str]:
    """Every Python module of the checkout's ``arena`` package, as paths inside a wheel."""
    return {path.relative_to(ROOT).as_posix() for path in (ROOT / "arena").rglob("*.py")
            if "__pycache__" not in path.parts}


@pytest.fixture(scope="module")
def engine_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The engine's wheel, built as the base image's wheel set builds it."""
    out = tmp_path_factory.mktemp("engine-wheel")
    return wheels.build_local_wheel(ROOT, wheels.ENGINE_FOLDER, out,
                                    alongside=wheels.ENGINE_SOURCES)


@pytest.fixture(scope="module")
def sdk_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SDK's wheel."""
    return wheels.build_local_wheel(ROOT, wheels.SDK_FOLDER, tmp_path_factory.mktemp("sdk-wheel"))


@pytest.fixture(scope="module")
def platform_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The platform's wheel, from a copy of its project file, its readme and the package."""
    project = tmp_path_factory.mktemp("platform")
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, project / name)
    shutil.copytree(ROOT / "arena", project / "arena", ignore=wheels.SKIPPED)
    return wheels.build_local_wheel(project, Path("."), tmp_path_factory.mktemp("platform-wheel"))


def test_engine_wheel_holds_its_packages_and_the_root(engine_wheel: Path) -> None:
    """The engine's wheel holds its four packages whole and the root files, nothing else."""
    files = wheel_files(engine_wheel)
    assert {name for name in files if not in_engine(name)} == set()
    assert {name for name in source_modules() if in_engine(name)} - files == set()
    assert {"arena/__init__.py", "arena/py.typed", "arena/games/py.typed",
            "arena/protocol/agent.proto"} <= files


def test_engine_imports_only_itself(engine_wheel: Path) -> None:
    """Every ``arena`` module the engine's modules import is in the engine's wheel."""
    files = wheel_files(engine_wheel)
    missing = {}
    with zipfile.ZipFile(engine_wheel) as archive:
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            for module in imported_modules(archive.read(name).decode("utf-8")):
                path = module.replace(".", "/")
                if not {f"{path}.py", f"{path}/__init__.py"} & files:
                    missing[name] = module
    assert missing == {}


def test_engine_requires_grpcio_protobuf_and_mypy_extensions(engine_wheel: Path) -> None:
    """The engine's metadata requires grpcio (pinned with grpcio-tools), protobuf and
    mypy_extensions, and nothing else."""
    requires = wheel_requires(engine_wheel)
    assert {normalized(line) for line in requires} == ENGINE_REQUIRES
    tools = next(line for line in pyproject(ROOT)["optional-dependencies"]["dev"]
                 if normalized(line) == "grpcio-tools")
    assert f"grpcio=={tools.split('==')[1]}" in requires


def test_platform_wheel_holds_the_rest_and_depends_on_the_engine(
        platform_wheel: Path, engine_wheel: Path) -> None:
    """Every module of ``arena`` is in exactly one of the two wheels, and the platform depends on
    the engine of its own version."""
    platform_files, engine_files = wheel_files(platform_wheel), wheel_files(engine_wheel)
    assert platform_files & engine_files == set()
    assert source_modules() - platform_files - engine_files == set()
    version = pyproject(ROOT)["version"]
    assert version == pyproject(ROOT / "engine")["version"] == arena.__version__
    assert f"{ENGINE}=={version}" in wheel_requires(platform_wheel)
    assert not ENGINE_REQUIRES & {normalized(line) for line in wheel_requires(platform_wheel)}


def test_sdk_depends_on_the_engine_alone(sdk_wheel: Path) -> None:
    """The SDK's metadata requires the engine distribution and nothing else."""
    assert [normalized(line) for line in wheel_requires(sdk_wheel)] == [ENGINE]


def test_development_install_holds_both_distributions() -> None:
    """The checkout is installed as the engine and the platform, and arena loads from it."""
    assert importlib.metadata.version(ENGINE) == arena.__version__
    sdk_requires = importlib.metadata.requires("cardarena-sdk") or []
    assert [normalized(line) for line in sdk_requires] == [ENGINE]
    assert Path(arena.__file__).resolve() == ROOT / "arena" / "__init__.py"


def test_engine_and_sdk_install_alone(engine_wheel: Path, sdk_wheel: Path,
                                      tmp_path: Path) -> None:
    """In a fresh environment, from wheels alone, the engine and the SDK install and play
    without any dependency of the platform."""
    if (sys.implementation.name, sys.version_info[:2], platform.machine()) != (
            "cpython", (3, 11), "x86_64") or sys.platform != "linux":
        pytest.skip("the cached dependency wheels are for CPython 3.11 on Linux x86_64")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index",
         "--disable-pip-version-check", "--find-links", str(wheels.wheel_cache()),
         str(sdk_wheel), str(engine_wheel)], capture_output=True, text=True, check=False)
    if install.returncode != 0 and "No matching distribution" in install.stdout + install.stderr:
        pytest.skip(f"the engine's dependency wheels are not in {wheels.wheel_cache()} "
                    f"(`arena images build-base` puts them there)")
    assert install.returncode == 0, install.stdout + install.stderr
    script = (
        "import importlib.metadata, importlib.util, json, cardarena_sdk, arena\n"
        "from arena.games import load_game\n"
        "from arena.policies import make_policy\n"
        "import arena.protocol\n"
        "state = load_game('briscola').new_initial_state(1)\n"
        "print(json.dumps({'dists': sorted(d.metadata['Name'] for d in "
        "importlib.metadata.distributions()), 'store': importlib.util.find_spec('arena.store') "
        "is not None, 'actions': len(state.legal_actions())}))\n")
    ran = subprocess.run([str(python), "-c", script], capture_output=True, text=True,
                         check=False, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout)
    installed = {normalized(name) for name in found["dists"]}
    platform_only = {normalized(line) for line in pyproject(ROOT)["dependencies"]}
    assert {ENGINE, "cardarena-sdk", *ENGINE_REQUIRES} <= installed
    assert installed & (platform_only - {ENGINE}) == set()
    assert "card-arena" not in installed and found["store"] is False
    assert found["actions"] > 0
