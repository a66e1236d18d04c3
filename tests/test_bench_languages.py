"""``arena bench languages``: bots played one after the other on the same deals, their decision
times and whether they made the reference bot's moves (real bot processes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bench import languages
from arena.bench.errors import BenchError
from arena.bench.languages import GAMES, default_bots, run_languages_bench
from arena.cli import app

ROOT = Path(__file__).resolve().parents[1]
PORTABLE = ROOT / "sample_bots" / "python" / "portable"
RANDOM = ROOT / "sample_bots" / "python" / "random"


def test_the_same_strategy_makes_the_same_moves_and_another_does_not() -> None:
    """The portable bot twice: identical matches, ratio near 1 by construction of the
    reference; the random bot differs, and the report says where."""
    report = run_languages_bench([PORTABLE, PORTABLE, RANDOM], deals=1)
    first, again, other = report["results"]
    assert report["reference"] == "portable" and first["ratio_p50"] == 1.0
    decisions = first["decisions"]
    assert decisions > 0 and again["decisions"] == decisions
    assert again["same_moves"] and again["first_difference"] is None
    assert not other["same_moves"]
    assert other["first_difference"].startswith(GAMES[0][0])
    for entry in report["results"]:
        assert 0 <= entry["p50_us"] <= entry["p95_us"] <= entry["p99_us"] and entry["p99_us"] > 0
        assert entry["language"] == "python"


def test_the_sample_ports_are_found_in_a_checkout() -> None:
    """The default bots are the ports present, the Python reference first."""
    found = default_bots()
    assert found[0] == PORTABLE
    assert all((path / "bot.toml").is_file() for path in found)


def test_json_and_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """--json prints the report; no bot at all is a bench error, zero deals a value error."""
    result = CliRunner().invoke(app, ["bench", "languages", "--bot", str(PORTABLE),
                                      "--deals", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [entry["bot"] for entry in data["results"]] == ["portable"]
    with pytest.raises(ValueError, match="deals must be at least 1"):
        run_languages_bench([PORTABLE], deals=0)
    monkeypatch.setattr(languages, "SAMPLE_PORTS", ())
    with pytest.raises(BenchError, match="no bot to measure"):
        run_languages_bench(None, deals=1)
