"""Bad bots on the command line: one clear line naming the bot and the reason, never a
traceback; the match is played out with the right reason code for the bot's seat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from arena.cli import app

BOTS = Path(__file__).parent / "bots"

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.mark.parametrize(("bot", "line"), [
    ("wrong-version", "seat {seat} wrong-version (bot): INIT_ERROR: the bot speaks protocol "
                      "'cardarena.v0'; the arena speaks 'cardarena.v1'"),
    ("no-command", "seat {seat} no-command (bot): INIT_ERROR: cannot run the command "
                   "'cardarena-no-such-command' in {folder}: No such file or directory"),
    ("crash-at-start", "seat {seat} crash-at-start (bot): INIT_ERROR: the bot exited with "
                       "status 1 before listening on its socket"),
])
@pytest.mark.parametrize("seat", [0, 1])
def test_a_bot_that_does_not_start_is_named_in_one_line(bot: str, line: str, seat: int) -> None:
    players = ["--bot", str(BOTS / bot)]
    args = [*players, "--policy", "random"] if seat == 0 else ["--policy", "random", *players]
    result = run("play", "briscola", "--seed", "5", "--json", *args)
    assert result.exit_code == 1
    folder = (BOTS / bot).resolve()
    lines = result.stderr.splitlines()
    assert lines[0] == line.format(seat=seat, folder=folder)
    if bot == "crash-at-start":  # then the end of what it printed: its traceback's last line
        assert lines[1] == f"seat {seat} crash-at-start (bot): its last output:"
        assert lines[-1].startswith("  FileNotFoundError: ")
    else:
        assert len(lines) == 1
    record = json.loads(result.stdout)
    assert record["reasons"][seat] == "INIT_ERROR" and record["reasons"][1 - seat] == "OK"
    assert len(record["returns"]) == 2 and sum(record["returns"]) == 0
    assert "Traceback" not in result.stderr


def test_a_bot_path_that_does_not_exist_is_bad_input(tmp_path: Path) -> None:
    missing = tmp_path / "nobot"
    result = run("play", "briscola", "--bot", str(missing), "--policy", "random")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"error: bot {missing}: no such file or directory"]
    assert result.stdout == ""
