"""``arena play`` with bots: seats in the order given, reason codes, bad bots, duplicate sets."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from agents.botkit import make_bot
from typer.testing import CliRunner, Result

from arena.cli import app
from arena.cli.play import seat_option_order
from arena.match import MatchRecord, replay
from arena.match.results import read_records
from tests.interrupts import arena_play, output_of, wait_while_running

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process, as on a wide terminal."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def score_rows(output: str) -> list[list[str]]:
    """The cells of the rows of the final scores table."""
    rows = [line for line in output.splitlines() if line.startswith("│")]
    return [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]


def test_seat_options_keep_their_order() -> None:
    args = ["briscola", "--policy", "random", "--bot=a", "-n", "3", "--bot", "b", "--",
            "--policy"]
    assert seat_option_order(args) == ["policy", "bot", "bot"]


def test_a_bot_and_a_policy_play_in_the_order_given(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    result = run("play", "briscola", "--seed", "2", "--policy", "random", "--bot", str(bot))
    assert result.exit_code == 0, result.output
    rows = score_rows(result.stdout)
    assert [row[:3] for row in rows] == [["0", "random", "OK"], ["1", "scripted (bot)", "OK"]]
    assert "policies: seat 0 random · seat 1 scripted (bot)" in result.stdout
    swapped = run("play", "briscola", "--seed", "2", "--bot", str(bot), "--policy", "random",
                  "--json")
    assert swapped.exit_code == 0, swapped.output
    record = MatchRecord.from_json(swapped.stdout)
    assert record.policies == ("scripted (bot)", "random")
    assert record.conduct is not None
    assert record.conduct.seats[0].agent["kind"] == "bot"
    assert record.conduct.seats[0].agent["path"] == str(bot)
    assert replay(record).returns() == list(record.returns)


def test_time_control_and_strikes_reach_the_record(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot", "--faults", "1:illegal,2:unset")
    result = run("play", "briscola", "--bot", str(bot), "--policy", "random",
                 "--decision-ms", "700", "--bank-ms", "900", "--strikes", "2", "--json")
    assert result.exit_code == 1
    record = MatchRecord.from_json(result.stdout)
    assert record.conduct is not None
    assert record.conduct.time_control["decision_ms"] == 700
    assert record.conduct.time_control["bank_ms"] == 900
    assert record.conduct.time_control["strikes"] == 2
    assert [seat.reason for seat in record.conduct.seats] == ["INVALID", "OK"]
    assert result.stderr.splitlines() == [
        "seat 0 scripted (bot): INVALID: 2 strikes; the last: unset: action id 0 (unset) is "
        "never an action"]


def test_faults_are_shown_after_the_scores(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot", "--faults", "2:illegal")
    result = run("play", "briscola", "--seed", "4", "--policy", "random", "--bot", str(bot))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    index = lines.index("Faults")
    assert lines[index + 1].startswith("  decision ")
    assert " · seat 1 · illegal (strike 1 of 3): action id " in lines[index + 1]
    assert " → played " in lines[index + 1]


def test_a_bot_that_fails_to_start_forfeits_with_one_clear_line(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot", "--exit-at-start", "4")
    result = run("play", "briscola", "--bot", str(bot), "--policy", "random")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "seat 0 scripted (bot): INIT_ERROR: the bot exited with status 4 before listening on "
        "its socket", "seat 0 scripted (bot): its last output:",
        "  scripted bot: failing at start"]
    assert [row[2] for row in score_rows(result.stdout)] == ["INIT_ERROR", "OK"]
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("kind", "message"), [
    ("missing", "bot {path}: no such file or directory"),
    ("empty", "bot {path}: no bot.toml in this folder"),
    ("scopa", "bot scripted ({path}) does not play briscola: its bot.toml lists games scopa"),
])
def test_a_bad_bot_path_is_bad_input(tmp_path: Path, kind: str, message: str) -> None:
    path = tmp_path / kind
    if kind == "empty":
        path.mkdir()
    elif kind == "scopa":
        make_bot(path, games=("scopa",))
    result = run("play", "briscola", "--bot", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == ["error: " + message.format(path=path)]


def test_too_many_players_are_named(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    result = run("play", "briscola", "--bot", str(bot), "--policy", "random", "--policy",
                 "heuristic")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: 3 players (--bot and --policy) given for 2 seats")


def test_a_duplicate_set_is_shown_saved_and_replayed(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    path = tmp_path / "set.json"
    result = run("play", "briscola", "--seed", "6", "--bot", str(bot), "--policy", "heuristic",
                 "--duplicate", "--save", str(path))
    assert result.exit_code == 0, result.output
    assert "Deal 1 of 2 · rotation 0" in result.stdout
    assert "Deal 2 of 2 · rotation 1" in result.stdout
    assert "Duplicate results" in result.stdout
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "card-arena.duplicate"
    assert [entrant["seats"] for entrant in data["entrants"]] == [[0, 1], [1, 0]]
    records = read_records(path)
    assert [record.policies for record in records] == [("scripted (bot)", "heuristic"),
                                                       ("heuristic", "scripted (bot)")]
    replayed = run("replay", str(path))
    assert replayed.exit_code == 0, replayed.output
    assert replayed.stdout.count("replay verified: 40 actions") == 2
    assert "Deal 2 of 2" in replayed.stdout


def test_sigterm_stops_the_bots_before_the_arena_ends(tmp_path: Path, temp_root: Path) -> None:
    pid_file = tmp_path / "bot.pid"
    bot = make_bot(tmp_path / "bot", "--faults", "1:hang", "--pid-file", str(pid_file))
    with arena_play("briscola", "--bot", str(bot), "--policy", "random",
                    temp_root=temp_root) as process:
        wait_while_running(process, pid_file.exists)
        assert pid_file.exists(), f"the bot did not start; {output_of(process)}"
        bot_pid = int(pid_file.read_text(encoding="utf-8"))
        process.send_signal(signal.SIGTERM)
        process.wait(60)
    assert process.returncode == -signal.SIGTERM
    with pytest.raises(ProcessLookupError):
        os.kill(bot_pid, 0)
    assert list(temp_root.iterdir()) == []


HOSTILE_NOTE = "\x1b]0;owned\x07<b>ace\u202e"
"""A debug note that would retitle a terminal, look like markup and flip the text."""


def test_debug_notes_are_shown_escaped_in_play_and_replay(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot", "--note", HOSTILE_NOTE)
    saved = tmp_path / "match.json"
    played = run("play", "briscola", "--seed", "3", "--bot", str(bot), "--policy", "random",
                 "--save", str(saved))
    assert played.exit_code == 0, played.output
    shown = "\\x1b]0;owned\\x07<b>ace\\u202e"
    for output in (played.stdout, run("replay", str(saved)).stdout):
        assert "Bot notes" in output
        notes = [line for line in output.splitlines() if line.startswith("  decision ")]
        assert len(notes) == 20
        assert all(line.endswith(f": {shown}") and " · seat 0 · played " in line
                   for line in notes), notes[:2]
        assert "\x1b" not in output and "\u202e" not in output


def test_a_bot_that_dies_before_listening_shows_its_last_output(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "broken"\nversion = "0.1"\nlanguage = "python"\n'
        'command = ["python", "bot.py"]\ngames = ["*"]\n', encoding="utf-8")
    (folder / "bot.py").write_text("import os\ndef broken(:\n    pass\n", encoding="utf-8")
    result = run("play", "briscola", "--bot", str(folder), "--policy", "random")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith("seat 0 broken (bot): INIT_ERROR: the bot exited with status 1 "
                               "before listening")
    assert lines[1] == "seat 0 broken (bot): its last output:"
    assert lines[-1] == "  SyntaxError: invalid syntax"
    assert any("def broken(:" in line for line in lines[2:])
