"""``arena bot new`` and ``arena bot check``: scaffolds that pass the check on every game, the
sample random bot, hostile bots that fail with the right line, and bad input."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from agents.botkit import SAMPLE_RANDOM, make_bot, short_temp_root
from typer.testing import CliRunner, Result

from arena.botkit import check_bot, scaffold_bot
from arena.botkit.scaffold import class_name
from arena.bots import BotManifest
from arena.cli import app
from arena.games import game_ids
from arena.match.timecontrol import TimeControl

HOSTILE = Path(__file__).parent / "hostile" / "bots"
CHECKS = ("manifest", "start-up", "handshake", "deadlines", "clean shutdown")

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def check_lines(output: str) -> list[str]:
    """The check lines of ``arena bot check`` (without the summary)."""
    return [line for line in output.splitlines() if re.match(r"(PASS|WARN|FAIL|SKIP) ", line)]


def test_a_new_bot_passes_the_check_on_every_game(tmp_path: Path) -> None:
    made = run("bot", "new", "ace-bot", "--lang", "python", "--dir", str(tmp_path))
    assert made.exit_code == 0, made.output
    folder = tmp_path / "ace-bot"
    assert sorted(path.name for path in folder.iterdir()) == ["Dockerfile", "README.md",
                                                              "bot.py", "bot.toml"]
    manifest = BotManifest.load(folder)
    assert (manifest.name, manifest.language, manifest.games) == ("ace-bot", "python", ("*",))
    source = (folder / "bot.py").read_text(encoding="utf-8")
    assert "class AceBot(Bot):" in source and 'name = "ace-bot"' in source
    assert "$" not in source + (folder / "README.md").read_text(encoding="utf-8")
    checked = run("bot", "check", str(folder))
    assert checked.exit_code == 0, checked.output
    lines = check_lines(checked.output)
    assert len(lines) == len(CHECKS) + len(game_ids())
    assert all(line.startswith("PASS ") for line in lines)
    assert [line.split()[3] for line in lines if line.startswith("PASS legal play ")] == (
        game_ids())
    assert re.search(r"^PASS start-up \(\d+\.\d\d s\)$", checked.output, re.MULTILINE)
    assert re.search(r"^PASS clean shutdown \(\d+\.\d\d s\)$", checked.output, re.MULTILINE)
    assert checked.output.splitlines()[-1] == f"bot ace-bot: all {len(lines)} checks passed"


def test_the_sample_random_bot_passes_every_check_as_json() -> None:
    checked = run("bot", "check", str(SAMPLE_RANDOM), "--json")
    assert checked.exit_code == 0, checked.output
    report = json.loads(checked.stdout)
    assert report["passed"] is True and report["name"] == "random"
    checks = [item["check"] for item in report["checks"]]
    assert checks == [*CHECKS[:3], *(f"legal play {game}" for game in game_ids()), *CHECKS[3:]]
    assert {item["status"] for item in report["checks"]} == {"PASS"}


def test_new_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    result = run("bot", "new", "mine", "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"error: {tmp_path / 'mine'} exists and is not empty; "
                                     "choose another name or --dir, nothing was written")
    assert [path.name for path in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_new_fills_an_empty_folder_and_defaults_to_the_current_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()
    assert scaffold_bot("empty", parent=tmp_path) == tmp_path / "empty"
    monkeypatch.chdir(tmp_path)
    result = run("bot", "new", "here_bot")
    assert result.exit_code == 0, result.output
    data = tomllib.loads((tmp_path / "here_bot" / "bot.toml").read_text(encoding="utf-8"))
    assert data["name"] == "here_bot" and data["command"] == ["python", "bot.py"]
    assert class_name("here_bot") == "HereBot" and class_name("my-bot") == "MyBot"


@pytest.mark.parametrize(("args", "message"), [
    (["x", "--lang", "cobol"], "error: unknown language 'cobol'; supported languages: python, "
                                  "rust, cpp, go"),
    (["9lives"], "error: bad bot name '9lives': use a letter, then letters, digits, '-' or '_' "
                 "(at most 64 characters)"),
])
def test_new_rejects_bad_input_in_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = run("bot", "new", *args, "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [message]
    assert list(tmp_path.iterdir()) == []


def test_check_names_an_illegal_action() -> None:
    result = run("bot", "check", str(HOSTILE / "illegal"), "--game", "briscola")
    assert result.exit_code == 1
    lines = check_lines(result.output)
    failed = [line for line in lines if line.startswith("FAIL ")]
    assert len(failed) == 1
    assert re.fullmatch(r"FAIL legal play briscola: illegal: action id \d+ is not legal; "
                        r"legal ids: [\d, ]+ \(decision \d+\)", failed[0])
    assert result.output.splitlines()[-1] == "bot illegal: 1 of 6 checks failed"


def test_check_reports_a_crash_at_start_with_the_bot_s_last_output() -> None:
    result = run("bot", "check", str(HOSTILE / "crash-at-start"), "--game", "briscola")
    assert result.exit_code == 1
    lines = check_lines(result.output)
    assert lines[1].startswith("FAIL start-up: the bot exited with status 1 before listening on "
                               "its socket; its last output: FileNotFoundError: ")
    assert lines[2:] == ["SKIP handshake: the bot did not start",
                         "SKIP legal play briscola: the bot did not start",
                         "SKIP deadlines: the bot did not start",
                         "SKIP clean shutdown: the bot did not start"]


def test_check_reports_a_wrong_protocol_version_at_the_handshake() -> None:
    result = run("bot", "check", str(HOSTILE / "wrong-version"), "--game", "briscola",
                 "--game", "scopa")
    assert result.exit_code == 1
    lines = check_lines(result.output)
    assert lines[2:] == ["FAIL handshake: the bot speaks protocol 'cardarena.v0'; the arena "
                         "speaks 'cardarena.v1'",
                         "SKIP legal play (2 games): the handshake failed",
                         "SKIP deadlines: the handshake failed",
                         lines[-1]]
    assert re.fullmatch(r"PASS clean shutdown \(\d+\.\d\d s\)", lines[-1])


def test_a_decision_over_its_limit_that_the_bank_covers_is_a_warning(tmp_path: Path) -> None:
    folder = make_bot(tmp_path / "slow", "--sleep-ms", "150", name="slow")
    checked = run("bot", "check", str(folder), "--game", "briscola", "--decision-ms", "100",
                  "--bank-ms", "10000")
    assert checked.exit_code == 0, checked.output
    line = next(line for line in check_lines(checked.output) if " deadlines" in line)
    assert re.fullmatch(r"WARN deadlines: \d+ decisions over the limit, covered by the time "
                        r"bank; the slowest: decision \d+ in briscola took 1\d\d\.\d ms of 100 ms",
                        line), line
    assert checked.output.splitlines()[-1] == ("bot slow: all 6 checks passed "
                                               "(1 with a warning)")


def test_a_decision_over_its_limit_and_bank_fails_the_deadlines(tmp_path: Path) -> None:
    folder = make_bot(tmp_path / "slow", "--sleep-ms", "150", name="slow")
    checked = run("bot", "check", str(folder), "--game", "briscola", "--decision-ms", "100",
                  "--bank-ms", "60")
    assert checked.exit_code == 1, checked.output
    line = next(line for line in check_lines(checked.output) if " deadlines" in line)
    assert re.fullmatch(r"FAIL deadlines: \d+ timeouts?; the first in briscola: timeout: "
                        r"(no answer within|answered after) \d+ ms.* \(decision \d+\)", line), line


def test_a_hanging_bot_fails_deadlines_and_shutdown_and_leaves_nothing() -> None:
    with short_temp_root() as root:
        report = check_bot(HOSTILE / "hangs", ["briscola"],
                           TimeControl(decision_ms=200, bank_ms=300), temp_root=root)
        assert list(root.iterdir()) == []
    texts = [line.text() for line in report.lines]
    assert not report.passed
    assert texts[3] == ("FAIL legal play briscola: TIMEOUT: 3 strikes; the last: timeout: no "
                        "answer within 200 ms (decision and bank)")
    assert texts[4].startswith("FAIL deadlines: 3 timeouts; the first in briscola: timeout: "
                               "no answer within 500 ms (decision and bank) (decision ")
    assert texts[5] == ("FAIL clean shutdown: the bot did not exit within 2 s of SIGTERM and "
                        "was killed with SIGKILL")


def test_a_crash_mid_match_skips_the_later_games() -> None:
    report = check_bot(HOSTILE / "crash-mid-match", ["briscola", "scopa"])
    texts = [line.text() for line in report.lines]
    assert re.fullmatch(r"FAIL legal play briscola: crash: the bot exited on signal 6 "
                        r"\(SIGABRT\) \(decision \d+\); its last output: crash-mid-match: "
                        r"aborting", texts[3])
    assert texts[4] == "SKIP legal play scopa: the bot is no longer running"
    assert texts[-1] == ("FAIL clean shutdown: the bot had already exited on signal 6 "
                         "(SIGABRT) before SIGTERM")


def test_check_bad_input(tmp_path: Path) -> None:
    missing = run("bot", "check", str(tmp_path / "nope"))
    assert missing.exit_code == 2
    assert missing.stderr.splitlines() == [f"error: bot {tmp_path / 'nope'}: no such file or "
                                           "directory"]
    unknown = run("bot", "check", str(SAMPLE_RANDOM), "--game", "poker")
    assert unknown.exit_code == 2 and unknown.stderr.startswith("error: unknown game 'poker'")
    only = tmp_path / "only"
    only.mkdir()
    (only / "bot.toml").write_text('name = "only"\nversion = "1"\nlanguage = "python"\n'
                                   'command = ["python", "bot.py"]\ngames = ["briscola"]\n',
                                   encoding="utf-8")
    unclaimed = run("bot", "check", str(only), "--game", "scopa")
    assert unclaimed.exit_code == 2
    assert unclaimed.stderr.splitlines() == [f"error: bot only ({only}) does not play scopa: "
                                             "its bot.toml lists games briscola"]
    empty = tmp_path / "empty"
    empty.mkdir()
    no_manifest = run("bot", "check", str(empty))
    assert no_manifest.exit_code == 1
    assert check_lines(no_manifest.output) == [f"FAIL manifest: bot {empty}: no bot.toml in "
                                               "this folder"]
    assert not os.listdir(empty)


def test_games_unknown_here_are_noted_and_a_bot_with_none_known_fails(tmp_path: Path) -> None:
    def bot(name: str, games: str) -> Path:
        """A copy of the sample random bot claiming ``games``."""
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.py").write_text((SAMPLE_RANDOM / "bot.py").read_text(encoding="utf-8"),
                                       encoding="utf-8")
        (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\nlanguage = '
                                         f'"python"\ncommand = ["python", "bot.py"]\n'
                                         f"games = {games}\n", encoding="utf-8")
        return folder

    some = run("bot", "check", str(bot("some", '["briscola", "poker"]')))
    assert some.exit_code == 0, some.output
    assert check_lines(some.output)[0] == ("PASS manifest (some 1, python, 1 game; not known "
                                           "here: poker)")
    none = run("bot", "check", str(bot("none", '["poker"]')))
    assert none.exit_code == 1
    assert check_lines(none.output) == ["FAIL manifest: bot none: no game of its bot.toml is "
                                        "known here: poker"]


def test_a_sigterm_during_a_check_stops_the_bot_first(tmp_path: Path) -> None:
    pid_file = tmp_path / "bot.pid"
    bot = make_bot(tmp_path / "slow", "--pid-file", str(pid_file), "--sleep-ms", "50")
    arena = Path(sys.executable).parent / "arena"
    with short_temp_root() as root:
        process = subprocess.Popen([str(arena), "bot", "check", str(bot)],
                                   env={**os.environ, "TMPDIR": str(root)},
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert process.stdout is not None
            lines = iter(process.stdout.readline, "")
            assert next(line for line in lines if "start-up" in line).startswith("PASS")
            pid = int(pid_file.read_text(encoding="utf-8"))
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == -signal.SIGTERM
        finally:
            process.kill()
            process.wait()
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert list(root.iterdir()) == []


def compiled_bot(folder: Path, script: str) -> Path:
    """A bot whose ``build`` command writes ``bin/bot`` (the random sample bot behind a shell
    launcher), after running ``script``."""
    folder.mkdir()
    (folder / "bot.py").write_text((SAMPLE_RANDOM / "bot.py").read_text(encoding="utf-8"))
    (folder / "bot.toml").write_text(
        'name = "built"\nversion = "1.0.0"\nlanguage = "cpp"\nbuild = ["sh", "build.sh"]\n'
        'command = ["./bin/bot"]\ngames = ["briscola"]\n', encoding="utf-8")
    launcher = f'#!/bin/sh\nexec {sys.executable} bot.py "$@"\n'
    (folder / "build.sh").write_text(
        f"{script}\nmkdir -p bin\ncat > bin/bot <<'EOF'\n{launcher}EOF\nchmod +x bin/bot\n",
        encoding="utf-8")
    return folder


def test_check_builds_a_compiled_bot_first(tmp_path: Path) -> None:
    """The build command runs before the bot starts, and gets a line of its own."""
    folder = compiled_bot(tmp_path / "built", "echo compiling")
    checked = run("bot", "check", str(folder))
    assert checked.exit_code == 0, checked.output
    lines = check_lines(checked.output)
    assert re.fullmatch(r"PASS build \(sh build.sh; \d+\.\d\d s\)", lines[1]), lines
    assert (folder / "bin" / "bot").is_file()


def test_check_stops_at_a_failed_build_with_its_output(tmp_path: Path) -> None:
    """A failing build is one FAIL line with the exit status and the compiler's words."""
    folder = compiled_bot(tmp_path / "broken", "echo 'bot.cc:3: error: oops' >&2; exit 2")
    checked = run("bot", "check", str(folder))
    assert checked.exit_code == 1, checked.output
    lines = check_lines(checked.output)
    assert lines[0].startswith("PASS manifest")
    assert lines[1].startswith("FAIL build: bot built: build command `sh build.sh` failed with "
                               "exit status 2")
    assert "bot.cc:3: error: oops" in checked.output
    assert not (folder / "bin").exists()
