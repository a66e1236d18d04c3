"""`scripts/test` runs the whole default suite: its parallel run and its run of the `alone` tests
(those that measure the host's shared disk or memory) split it between them, and the `alone`
tests have no other test beside them."""

from __future__ import annotations

import shlex
from itertools import combinations
from pathlib import Path

from _pytest.mark.expression import Expression

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "test"
MARKERS = ("alone", "docker", "soak", "slow")


def pytest_runs() -> list[list[str]]:
    """The arguments of each `python -m pytest` line of the script."""
    runs = []
    for line in SCRIPT.read_text().splitlines():
        if not line.startswith("python -m pytest"):
            continue
        words = shlex.split(line, comments=True)
        if words[:3] == ["python", "-m", "pytest"]:
            runs.append(words[3:words.index("||")] if "||" in words else words[3:])
    return runs


def selects(arguments: list[str], markers: set[str]) -> bool:
    """Whether a run with ``arguments`` takes a test with ``markers``."""
    expression = arguments[arguments.index("-m") + 1]
    return Expression.compile(expression).evaluate(lambda name: name in markers)


def test_every_default_test_runs_once_and_alone_tests_run_by_themselves() -> None:
    runs = pytest_runs()
    assert len(runs) == 2, runs
    for size in range(len(MARKERS) + 1):
        for chosen in combinations(MARKERS, size):
            markers = set(chosen)
            taken_by = [run for run in runs if selects(run, markers)]
            expected = 0 if "slow" in markers else 1
            assert len(taken_by) == expected, (markers, taken_by)
            if "alone" in markers and taken_by:
                assert "-n" not in taken_by[0], taken_by[0]
