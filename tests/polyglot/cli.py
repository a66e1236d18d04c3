"""The arena's command line, in-process, as the bots' tests use it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from arena.cli import app

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def check(*args: str) -> dict[str, Any]:
    """``arena bot check ARGS --json``, its report; every check must pass."""
    result = run("bot", "check", *args, "--json")
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"arena bot check gave no report:\n{result.output}")
    failed = [item for item in report["checks"] if item["status"] != "PASS"]
    assert result.exit_code == 0 and report["passed"] and not failed, result.output
    return dict(report)


def play(game: str, seats: Sequence[str], seed: int) -> dict[str, Any]:
    """``arena play GAME SEATS --seed SEED --json``: the match record."""
    result = run("play", game, *seats, "--seed", str(seed), "--json")
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))
