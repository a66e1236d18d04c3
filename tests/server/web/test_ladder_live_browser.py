"""The leaderboard of a real ``arena serve --ladder`` in a real headless Chromium: as the
ladder plays its sets, the home page's contests grow, twice, without a reload."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.league.test_ladder_run import free_port
from tests.server.web.test_browser import chromium_path, page  # noqa: F401
from tests.server.web.test_live_browser import STAYED, WAIT_MS

UP_S = 60.0
"""The longest the service may take to serve its first page (never reached when it works)."""

CONTESTS = ("Array.from(document.querySelectorAll('main table')[0]?.querySelectorAll("
            "'tbody tr td:nth-child(6)') ?? []).reduce((sum, cell) => sum + "
            "(parseInt(cell.textContent, 10) || 0), 0)")
"""The contests of the overall table summed over its bots (0 before the first result)."""


def wait_until_served(base: str, service: subprocess.Popen[bytes]) -> None:
    """Poll the home page until it answers 200 (the service must stay alive)."""
    deadline = time.monotonic() + UP_S
    while time.monotonic() < deadline:
        assert service.poll() is None, "the service ended before serving its pages"
        try:
            with urllib.request.urlopen(f"{base}/", timeout=5) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError):
            pass
        time.sleep(0.2)
    raise AssertionError("the service's pages did not answer")


def test_the_leaderboard_changes_while_the_ladder_plays(
        page: Any, tmp_path: Path) -> None:  # noqa: F811
    """The home page of a ladder in play shows results, then more, on the same page; the
    service then stops cleanly."""
    url = f"sqlite:///{tmp_path / 'ladder.db'}"
    web_port = free_port()
    with (tmp_path / "serve.log").open("wb") as log:
        service = subprocess.Popen(
            [sys.executable, "-c", "from arena.cli import app; app()", "serve", "--ladder",
             "--db", url, "--grpc-port", str(free_port()), "--web-port", str(web_port),
             "--workers", "1", "--data", str(tmp_path / "data")],
            env={**os.environ, "XDG_DATA_HOME": str(tmp_path)}, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{web_port}"
        wait_until_served(base, service)
        page.goto(f"{base}/")
        page.evaluate(STAYED)
        page.wait_for_function(f"({CONTESTS}) > 0", timeout=WAIT_MS)
        seen = page.evaluate(CONTESTS)
        page.wait_for_function(f"({CONTESTS}) > {seen}", timeout=WAIT_MS)
        assert page.evaluate("window.__stayed") is True
        assert "random (policy)" in page.inner_text("main")
        page.goto("about:blank")  # closes the event stream before the service stops
    finally:
        service.send_signal(signal.SIGINT)
        try:
            service.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(service.pid, signal.SIGKILL)
            service.wait(timeout=30)
    assert service.returncode == 0, (tmp_path / "serve.log").read_text()[-3000:]
