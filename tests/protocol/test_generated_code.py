"""The committed protobuf code matches proto/, and every grpcio package shares one version."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_is_fresh() -> None:
    """Regenerating from proto/ changes nothing in arena/protocol/v1."""
    result = subprocess.run([sys.executable, str(ROOT / "proto" / "generate.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_every_proto_file_is_generated() -> None:
    """Both the agent protocol and the arena service have messages, stubs and gRPC code."""
    generated = {path.name for path in (ROOT / "arena" / "protocol" / "v1").glob("*_pb2*.py*")}
    for name in ("agent", "arena"):
        assert {f"{name}_pb2.py", f"{name}_pb2.pyi", f"{name}_pb2_grpc.py"} <= generated


@pytest.mark.parametrize("name", ["agent_pb2.pyi", "arena_pb2_grpc.py"])
def test_staleness_check_notices_a_change(name: str) -> None:
    """The check fails when a generated file differs from what proto/ gives."""
    target = ROOT / "arena" / "protocol" / "v1" / name
    original = target.read_text()
    try:
        target.write_text(original + "\n# edited by hand\n")
        result = subprocess.run([sys.executable, str(ROOT / "proto" / "generate.py"), "--check"],
                                capture_output=True, text=True, check=False)
    finally:
        target.write_text(original)
    assert result.returncode == 1
    assert name in result.stderr


def test_grpcio_packages_are_pinned_to_one_version() -> None:
    """grpcio, grpcio-tools and any other grpcio-* requirement of the platform and the engine
    distributions name the same exact version."""
    requirements: list[str] = []
    for pyproject in (ROOT / "pyproject.toml", ROOT / "engine" / "pyproject.toml"):
        project = tomllib.loads(pyproject.read_text())["project"]
        requirements += project["dependencies"]
        for extra in project.get("optional-dependencies", {}).values():
            requirements += extra
    pins = {}
    for requirement in requirements:
        match = re.fullmatch(r"(grpcio(?:-[a-z-]+)?)\s*(.*)", requirement)
        if match:
            pins[match.group(1)] = match.group(2)
    assert {"grpcio", "grpcio-tools"} <= set(pins)
    versions = set(pins.values())
    assert len(versions) == 1 and next(iter(versions)).startswith("=="), pins
    import grpc

    assert "==" + grpc.__version__ in versions
