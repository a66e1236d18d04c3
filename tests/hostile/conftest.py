"""Fixtures for the hostile-bot tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agents.botkit import short_temp_root


@pytest.fixture
def temp_root() -> Iterator[Path]:
    """Where the bots' private temporary folders go (a short path, removed afterwards)."""
    with short_temp_root() as root:
        yield root
