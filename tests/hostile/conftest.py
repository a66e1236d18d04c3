"""Fixtures for the hostile-bot tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from agents.botkit import short_temp_root

from arena.agents.native import built
from arena.agents.transport import TRANSPORT_ENV


@pytest.fixture
def temp_root() -> Iterator[Path]:
    """Where the bots' private temporary folders go (a short path, removed afterwards)."""
    with short_temp_root() as root:
        yield root


@pytest.fixture(params=["native", "grpc"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each transport of bots' streams in turn: the compiled one and the grpc.aio reference
    (``CARDARENA_TRANSPORT``); the compiled one must be built under CI."""
    name: str = request.param
    if name == "native" and not built():
        if os.environ.get("CI") == "true":
            pytest.fail("the compiled transport (wire/) is not built")
        pytest.skip("the compiled transport (wire/) is not built")
    monkeypatch.setenv(TRANSPORT_ENV, name)
    return name
