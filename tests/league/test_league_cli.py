"""The league commands end to end: create, run, status, leaderboard and report, and bad input
as one line with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from store import conftest as store_fixtures
from typer.testing import CliRunner

from arena.cli import ArenaGroup
from arena.cli.leaderboard import leaderboard_command
from arena.cli.league import league_app
from arena.cli.report import report_command

pg_cluster = store_fixtures.pg_cluster
store_url = store_fixtures.store_url


@pytest.fixture
def app() -> typer.Typer:
    """``arena`` with the league commands, as the coordinator wires them."""
    arena = typer.Typer(cls=ArenaGroup)
    arena.add_typer(league_app, name="league")
    arena.command("leaderboard")(leaderboard_command)
    arena.command("report")(report_command)
    return arena


def test_create_run_status_leaderboard_report(app: typer.Typer, store_url: str,
                                              tmp_path: Path) -> None:
    """A league of the reference policies, from creation to its report."""
    runner = CliRunner()
    created = runner.invoke(app, ["league", "create", "cup", "--bot", "heuristic", "--bot",
                                  "random", "--games", "briscola,tressette", "--deals", "2",
                                  "--db", store_url])
    assert created.exit_code == 0, created.output
    ran = runner.invoke(app, ["league", "run", "cup", "--workers", "1", "--db", store_url])
    assert ran.exit_code == 0, ran.output
    assert "4/4 matches finished" in ran.output
    status = runner.invoke(app, ["league", "status", "cup", "--json", "--db", store_url])
    assert json.loads(status.output)["status"] == {"pending": 0, "leased": 0, "done": 4,
                                                   "void": 0}
    board = runner.invoke(app, ["leaderboard", "--json", "--db", store_url])
    assert board.exit_code == 0, board.output
    tables = json.loads(board.output)
    assert set(tables["games"]) == {"briscola", "tressette"}
    assert {row["bot"] for row in tables["overall"]} == {"heuristic (policy)",
                                                         "random (policy)"}
    one = json.loads(runner.invoke(app, ["leaderboard", "--game", "briscola", "--json",
                                         "--db", store_url]).output)
    assert "overall" not in one and list(one["games"]) == ["briscola"]
    assert one["left_out"] == {"briscola": {"void_sets": 0, "void_deals": 0, "reason": None}}
    assert {row["forfeits"] for row in one["games"]["briscola"]} == {0}
    assert {json.dumps(row["faults"]) for row in one["games"]["briscola"]} == {"{}"}
    out = tmp_path / "report"
    report = runner.invoke(app, ["report", "cup", "--out", str(out), "--db", store_url])
    assert report.exit_code == 0, report.output
    assert (out / "report.html").is_file() and (out / "report.md").is_file()
    assert "report written to" in report.output
    quiet = runner.invoke(app, ["report", "cup", "--quiet", "--out", str(out), "--db",
                                store_url])
    assert quiet.output.strip().splitlines() == [
        f"report written to {out / 'report.html'} (and report.md, plots beside it)"]
    assert "Holm" in (out / "report.md").read_text(encoding="utf-8")
    bonferroni = runner.invoke(app, ["report", "cup", "--quiet", "--correction", "bonferroni",
                                     "--out", str(out), "--db", store_url])
    assert bonferroni.exit_code == 0, bonferroni.output
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "Bonferroni" in markdown and "Holm" not in markdown


@pytest.mark.parametrize("args", [
    ["league", "run", "nosuch"],
    ["league", "status", "nosuch"],
    ["report", "nosuch"],
    ["report", "cup", "--correction", "tukey"],
    ["leaderboard", "--game", "briscola"],
    ["league", "create", "x", "--bot", "random", "--bot", "./no/such/bot"],
])
def test_bad_input_is_one_line(app: typer.Typer, store_url: str, args: list[str]) -> None:
    """An unknown league, game table or bot: one ``error:`` line, exit code 2."""
    result = CliRunner().invoke(app, [*args, "--db", store_url])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output


def test_an_unreachable_database_is_one_line(app: typer.Typer, tmp_path: Path) -> None:
    """A database that cannot be opened: one line naming it, exit code 2."""
    url = f"postgresql+psycopg://nobody@/nowhere?host={tmp_path}"
    result = CliRunner().invoke(app, ["league", "status", "cup", "--db", url])
    assert result.exit_code == 2
    assert result.output.startswith("error: cannot open the database"), result.output
