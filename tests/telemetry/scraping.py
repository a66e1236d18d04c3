"""Helpers of the telemetry tests: this process's samples, free ports, scraping /metrics,
waiting, JSON log lines."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

REPO = Path(__file__).resolve().parents[2]
CRASHER = REPO / "tests" / "hostile" / "bots" / "crash-mid-match"
"""A process bot that crashes in the middle of every deal (a CRASH fault)."""

WAIT_S = 90.0
"""The longest any condition is waited for."""


def sample(name: str, **labels: str) -> float:
    """A sample of this process's registry (0 when absent)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def free_port() -> int:
    """A TCP port free now on localhost."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def bot_env(**extra: str) -> dict[str, str]:
    """The environment of a command that starts process bots: this Python first on PATH (the
    bots' ``python``)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, **extra}


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float] | None:
    """Every sample at ``/metrics`` on the port, by name and sorted labels; None while nothing
    answers there."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
            text = reply.read().decode()
    except (urllib.error.URLError, ConnectionError):
        return None
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str,
          **labels: str) -> float:
    """One sample's value (0 when it is not there: a counter never incremented)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def wait_for(check: Callable[[], Any], what: str, alive: Callable[[], str | None]) -> Any:
    """Poll ``check`` until it gives a true value (at most ``WAIT_S``); fail when ``alive``
    says the process ended (its log)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        result = check()
        if result:
            return result
        ended = alive()
        assert ended is None, f"the process ended while waiting for {what}:\n{ended}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of a log, each parsed as a JSON object (a line that is not one fails)."""
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                parsed = json.loads(line)
            except json.JSONDecodeError:
                raise AssertionError(f"line {number} is not JSON: {line!r}") from None
            assert isinstance(parsed, dict), line
            lines.append(parsed)
    return lines
