"""docs/envs.md's OpenSpiel section: its example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "envs.md"


def openspiel_example() -> str:
    """The python block of the OpenSpiel section."""
    section = DOC.read_text("utf-8").split("\n## OpenSpiel\n", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```python\n(.*?)```", section, re.S)
    return block


def test_the_example_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    """The example loads the game with its parameters, plays a match and prints its returns."""
    exec(compile(openspiel_example(), str(DOC), "exec"), {"__name__": "__doc_example__"})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("cardarena_briscola_chiamata(")
    assert "players=5" in printed[0] and printed[0].endswith(" 480 [1173]")
    returns = [float(value) for value in printed[1].strip("[]").split(",")]
    assert len(returns) == 5 and sum(returns) == 0
