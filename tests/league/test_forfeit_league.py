"""A league with a bot that crashes in every deal: under ``loss`` it ranks last, below random,
and its crashes show in ``league run``, ``league status``, ``leaderboard``, ``report`` and
their JSON; under ``stand`` the substitute's returns stand as before; a bad policy is one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from agents.botkit import make_bot
from store import conftest as store_fixtures
from typer.testing import CliRunner

from arena.cli import ArenaGroup
from arena.cli.leaderboard import leaderboard_command
from arena.cli.league import league_app
from arena.cli.report import report_command
from arena.games import load_game
from arena.league.forfeits import ForfeitPolicy
from arena.league.ratings import game_ratings, leaderboard
from arena.league.status import find_league, played_sets
from arena.store import open_store

pg_cluster = store_fixtures.pg_cluster
store_url = store_fixtures.store_url

CRASHER = "crasher"
RANDOM = "random (policy)"
HEURISTIC = "heuristic (policy)"
DEALS = 2
CRASHER_DEALS = 2 * 2 * DEALS
"""The crasher's deals: a table against each other bot, ``DEALS`` sets of two rotations."""


@pytest.fixture
def app() -> typer.Typer:
    """``arena`` with the league commands."""
    arena = typer.Typer(cls=ArenaGroup)
    arena.add_typer(league_app, name="league")
    arena.command("leaderboard")(leaderboard_command)
    arena.command("report")(report_command)
    return arena


def run_league(app: typer.Typer, db: str, folder: Path, *policy: str) -> str:
    """Create and run a league of the crasher, random and heuristic at briscola; its run's
    output."""
    crasher = make_bot(folder / "crasher", "--crash-at", "1", name=CRASHER)
    runner = CliRunner()
    created = runner.invoke(app, ["league", "create", "cup", "--bot", str(crasher), "--bot",
                                  "random", "--bot", "heuristic", "--games", "briscola",
                                  "--deals", str(DEALS), *policy, "--db", db])
    assert created.exit_code == 0, created.output
    ran = runner.invoke(app, ["league", "run", "cup", "--workers", "1", "--db", db])
    assert ran.exit_code == 0, ran.output
    return ran.output


def test_a_crashing_bot_ranks_last_and_its_crashes_show_everywhere(
        app: typer.Typer, store_url: str, tmp_path: Path) -> None:
    """Policy loss (the default): last in every table, CRASH counted in each output."""
    output = run_league(app, store_url, tmp_path)
    runner = CliRunner()
    closing = output.strip().splitlines()[-1]
    assert closing.startswith("forfeited: crasher (") and "CRASH" in closing, output
    assert RANDOM not in closing and HEURISTIC not in closing

    status = json.loads(runner.invoke(app, ["league", "status", "cup", "--json", "--db",
                                            store_url]).output)
    assert status["forfeit_policy"] == "loss"
    entrants = {entry["bot"]: entry for entry in status["entrants"]}
    # Every deal is forfeited: a crash, or (when a restart after a crash is slow to listen)
    # a failed start.
    faults = entrants[CRASHER]["faults"]
    crashes = faults["CRASH"]
    assert crashes >= 1 and set(faults) <= {"CRASH", "INIT_ERROR"}
    assert entrants[CRASHER]["forfeits"] == sum(faults.values()) == CRASHER_DEALS
    assert entrants[RANDOM] == {"bot": RANDOM, "sets": 2 * DEALS, "faults": {}, "forfeits": 0}
    text = runner.invoke(app, ["league", "status", "cup", "--db", store_url]).output
    assert "forfeits (scored as loss; no deal left out)" in text
    assert re.search(rf"crasher\s*│\s*{CRASHER_DEALS}\s*│", text), text

    board = json.loads(runner.invoke(app, ["leaderboard", "--json", "--db", store_url]).output)
    for rows in (board["overall"], board["games"]["briscola"]):
        assert [row["bot"] for row in rows][-1] == CRASHER
        last, above = rows[-1], {row["bot"]: row for row in rows}[RANDOM]
        assert last["conservative"] < above["conservative"] and last["mu"] < above["mu"]
        assert last["faults"] == faults and last["forfeits"] == CRASHER_DEALS
        assert above["faults"] == {} and above["forfeits"] == 0
    assert board["left_out"]["briscola"]["void_sets"] == 0
    table = runner.invoke(app, ["leaderboard", "--db", store_url]).output
    assert f"CRASH {crashes}" in table and "forfeits scored as loss; no deal left out" in table

    out = tmp_path / "report"
    report = runner.invoke(app, ["report", "cup", "--out", str(out), "--db", store_url])
    assert report.exit_code == 0, report.output
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    bots = {entry["bot"]: entry for entry in data["bots"]}
    assert bots[CRASHER]["faults"] == faults and bots[RANDOM]["forfeits"] == 0
    assert [rating["bot"] for rating in data["overall"]][-1] == CRASHER
    assert len(data["faults"]) == CRASHER_DEALS
    assert {fault["bot"] for fault in data["faults"]} == {CRASHER}
    fault = next(fault for fault in data["faults"] if fault["reason"] == "CRASH")
    assert fault["match"] and "crashing at decision 1" in fault["log"]
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert f"### Faults ({CRASHER_DEALS} forfeited seats)" in markdown
    assert "crashing at decision 1" in markdown and "Forfeits scored as loss" in markdown
    assert "crashing at decision 1" in (out / "report.html").read_text(encoding="utf-8")


def test_with_stand_the_substitutes_returns_stand(app: typer.Typer, store_url: str,
                                                 tmp_path: Path) -> None:
    """Policy stand: the ratings are those of the returns as played (today's behaviour), and
    the crashes are still counted."""
    output = run_league(app, store_url, tmp_path, "--forfeit-policy", "stand")
    assert "forfeited: crasher (" in output
    with open_store(store_url) as store, store.session() as session:
        played, _ = played_sets(session, [find_league(session, "cup")])
    rules = load_game("briscola", 2, played[0][1].params)
    sets = [(match.seats, result) for match, result in played]
    expected = leaderboard(game_ratings(rules, sets, policy=ForfeitPolicy.STAND))
    losing = leaderboard(game_ratings(rules, sets, policy=ForfeitPolicy.LOSS))
    assert [rating.bot for rating in losing][-1] == CRASHER
    board = json.loads(CliRunner().invoke(app, ["leaderboard", "--game", "briscola", "--json",
                                                "--db", store_url]).output)
    rows = board["games"]["briscola"]
    assert [(row["bot"], row["mu"], row["sigma"]) for row in rows] == [
        (rating.bot, rating.mu, rating.sigma) for rating in expected]
    assert board["forfeit_policies"] == ["stand"]
    assert {row["bot"]: row["forfeits"] for row in rows}[CRASHER] == CRASHER_DEALS


@pytest.mark.parametrize("policy", ["draw", ""])
def test_an_unknown_forfeit_policy_is_one_line(app: typer.Typer, tmp_path: Path,
                                               policy: str) -> None:
    """One ``error:`` line naming the policy and the choices, exit code 2, nothing created."""
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    result = CliRunner().invoke(app, ["league", "create", "cup", "--bot", "random", "--bot",
                                      "heuristic", "--forfeit-policy", policy, "--db", db])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: unknown forfeit policy {policy!r}: choose loss, stand"]
    status = CliRunner().invoke(app, ["league", "status", "cup", "--db", db])
    assert status.exit_code == 2 and "no league named 'cup'" in status.output
