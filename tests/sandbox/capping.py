"""Tests of capped socket folders need an arena that may mount them (root)."""

from __future__ import annotations

import pytest

from arena.sandbox import capfs

from .conftest import in_ci


def require_capping() -> None:
    """Fail under CI, else skip, when this arena cannot mount capped socket folders."""
    reason = capfs.unavailable()
    if reason:
        if in_ci():
            pytest.fail(f"the socket-folder tests need an arena that may mount: {reason}")
        pytest.skip(reason)
