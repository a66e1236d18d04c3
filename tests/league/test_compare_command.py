"""``arena compare A B`` for real: reference policies and sample bot processes played in
duplicate until the test decides, its JSON, its closing lines, its bad input and Ctrl-C."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import struct
import subprocess
import termios
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from arena.cli import app
from arena.cli import compare as compare_cli
from arena.games import load_game
from arena.league.comparing import (
    DEFAULT_DELTA1,
    Comparison,
    compare_games,
    contender,
    game_tests,
    measured_delta1,
    run_comparison,
    schedules,
)
from arena.league.sprt import MIN_SETS
from tests.interrupts import ARENA, default_sigint

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_HEURISTIC = ROOT / "sample_bots" / "python" / "heuristic"
SAMPLE_RANDOM = ROOT / "sample_bots" / "python" / "random"

KEYS = ["decision", "sets", "llr", "lower_bound", "upper_bound", "mean_difference", "ci_low",
        "ci_high", "interrupted"]

WAIT_S = 60
"""How long a test waits for ``arena compare`` to play a set, or to end once interrupted."""

runner = CliRunner()


def arena(*args: str) -> Result:
    """Run ``arena ARGS`` in this process."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def test_random_against_itself_accepts_h0() -> None:
    """The random policy against itself: every set's difference is 0, H0 at the minimum of
    sets; the note says the two are one bot; the JSON has exactly its keys."""
    result = arena("compare", "random", "random", "--game", "briscola", "--json", "--seed", "3")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data) == KEYS
    assert data["decision"] == "H0"
    assert data["sets"] == MIN_SETS
    assert data["llr"] <= data["lower_bound"] < 0 < data["upper_bound"]
    assert data["mean_difference"] == 0
    assert data["ci_low"] is None and data["ci_high"] is None  # no spread: no interval
    assert data["interrupted"] is False
    assert "same bot (policy:random)" in result.stderr
    assert "should accept H0" in result.stderr


def test_heuristic_against_random_accepts_h1() -> None:
    """The heuristic policy against the random one at briscola: H1, a positive mean whose
    interval excludes 0, and the closing lines."""
    result = arena("compare", "heuristic", "random", "--game", "briscola", "--seed", "1",
                   "--max-sets", "200")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "A heuristic against B random"
    assert lines[1] == ("H1 accepted: heuristic is better than random (a mean difference of "
                        "0.2 briscola return per deal rather than 0)")
    assert lines[2].startswith("sets ")
    assert "LLR +" in lines[2] and "(bounds -2.944, +2.944)" in lines[2]
    assert lines[3].startswith("mean difference +")
    assert lines[3].endswith(") in briscola return per deal, 95% interval")
    low = float(lines[3].split("(")[1].split(",")[0])
    assert low > 0
    assert lines[4].startswith("win rate of heuristic over the sets ")
    assert lines[4].endswith(", ties half, 95% interval")
    assert "same bot" not in result.stderr


def test_json_of_h1_with_its_interval_above_zero() -> None:
    """--json for a decided H1: LLR past the upper bound, the interval above zero."""
    result = arena("compare", "heuristic", "random", "--game", "scopa", "--json", "--seed", "2")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["decision"] == "H1"
    assert data["llr"] >= data["upper_bound"]
    assert 0 < data["ci_low"] <= data["mean_difference"] <= data["ci_high"]


def test_sample_bot_folders_play_as_processes() -> None:
    """The heuristic sample bot (a process) against the random policy: H1 within 40 sets."""
    result = arena("compare", str(SAMPLE_HEURISTIC), "random", "--game", "briscola", "--json",
                   "--seed", "5", "--max-sets", "40")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["decision"] == "H1"


def test_h0_in_words_and_a_bad_forfeit_policy() -> None:
    """The closing line of H0, and an unknown forfeit policy as one error line."""
    result = arena("compare", "random", "random", "--game", "scopa", "--seed", "1")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1] == (
        "H0 accepted: random is not better than random by 0.2 (a mean difference of 0 scopa "
        "return per deal rather than 0.2)")
    assert "(not enough data) in scopa return per deal" in result.stdout
    bad = arena("compare", "random", "heuristic", "--game", "scopa", "--forfeit-policy", "x")
    assert bad.exit_code == 2
    assert bad.stderr == "error: unknown forfeit policy 'x': choose loss, stand\n"


def test_same_folder_twice_is_allowed_and_said() -> None:
    """One bot folder named twice plays against itself, and the note names its folder."""
    result = arena("compare", str(SAMPLE_RANDOM), str(SAMPLE_RANDOM) + "/", "--game",
                   "briscola", "--json", "--max-sets", "2")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["decision"], data["sets"]) == ("inconclusive", 2)
    assert f"same bot (folder:{SAMPLE_RANDOM})" in result.stderr


def test_several_games_take_turns_in_one_test() -> None:
    """Two games: the sets alternate between them and the test decides on both together."""
    a, b = contender("heuristic"), contender("random")
    games = compare_games(["briscola", "scopa"], a, b)
    comparison = run_comparison(Comparison(a, b, game_tests(games, 0.0, None), 0.05, 0.05, 60),
                                seed=4)
    assert comparison.decision.value == "H1"
    counts = [len(tally.differences) for tally in comparison.tallies.values()]
    assert abs(counts[0] - counts[1]) <= 1 and sum(counts) == comparison.sets


def test_schedule_seats_as_a_league_does() -> None:
    """5-seat chiamata: tables ABABA and BABAB, five rotations each, the games in turn."""
    a, b = contender("heuristic"), contender("random")
    tests = game_tests(compare_games(["briscola-chiamata", "briscola"], a, b), 0.0, None)
    played = [(test.game.id, match.seats, match.rotations)
              for test, match in list(schedules(tests, 4, 7))[:6]]
    assert played[:3] == [("briscola-chiamata", (0, 1, 0, 1, 0), 5),
                          ("briscola-chiamata", (1, 0, 1, 0, 1), 5),
                          ("briscola", (0, 1), 2)]
    assert played[3][0] == "briscola-chiamata"


def test_default_margins_follow_their_rule() -> None:
    """The table's margins are 0.2 standard deviations of a seat's random-play return."""
    for game_id in ("briscola", "tressette-pozzo"):
        assert measured_delta1(load_game(game_id)) == pytest.approx(DEFAULT_DELTA1[game_id])


def bot_folder(root: Path, name: str, games: str) -> Path:
    """A bot folder whose bot.toml lists ``games`` (never run)."""
    folder = root / name
    folder.mkdir()
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\nlanguage = "python"\n'
                                     f'command = ["python", "bot.py"]\ngames = [{games}]\n')
    (folder / "bot.py").write_text("")
    return folder


@pytest.mark.parametrize(("args", "words"), [
    (["--delta0", "0.5", "--delta1", "0.2"],
     "error: inverted SPRT bounds: --delta1 (0.2) must be greater than --delta0 (0.5)"),
    (["--delta0", "0.5"], "error: inverted SPRT bounds: --delta1 (0.2) must be greater than "
                          "--delta0 (0.5) (briscola's default --delta1 is 0.2)"),
    (["--delta1", "-0.3"], "error: --delta1 must be a positive margin"),
    (["--alpha", "-0.05"], "error: --alpha must lie between 0 and 0.5"),
    (["--beta", "0.9"], "error: --beta must lie between 0 and 0.5"),
])
def test_bad_bounds_are_one_line(args: list[str], words: str) -> None:
    """Negative or inverted bounds and error rates: one error line, exit code 2."""
    result = arena("compare", "heuristic", "random", "--game", "briscola", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(words), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert result.stdout == ""


def test_a_game_neither_bot_plays(tmp_path: Path) -> None:
    """Two bots that both play only briscola, asked for scopa: one line naming both."""
    first = bot_folder(tmp_path, "first", '"briscola"')
    second = bot_folder(tmp_path, "second", '"briscola"')
    result = arena("compare", str(first), str(second), "--game", "scopa")
    assert result.exit_code == 2
    assert result.stderr == "error: neither first (bot) nor second (bot) plays scopa\n"


def test_a_game_one_bot_does_not_play(tmp_path: Path) -> None:
    """One bot without the game: its own line, naming its bot.toml's games."""
    only = bot_folder(tmp_path, "only", '"briscola"')
    result = arena("compare", "random", str(only), "--game", "scopa")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: bot only")
    assert "does not play scopa" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_no_game_in_common_and_other_bad_names(tmp_path: Path) -> None:
    """No common game, an unknown bot, an unknown game, --games other than all."""
    first = bot_folder(tmp_path, "first", '"briscola"')
    second = bot_folder(tmp_path, "second", '"scopa"')
    cases = [
        (["compare", str(first), str(second), "--games", "all"],
         "error: first (bot) and second (bot) have no game in common"),
        (["compare", "nobody", "random", "--game", "briscola"], "error: unknown bot 'nobody'"),
        (["compare", "random", "heuristic", "--game", "nogame"], "error: unknown game"),
        (["compare", "random", "heuristic", "--games", "some"], "error: "),
    ]
    for args, words in cases:
        result = arena(*args)
        assert result.exit_code == 2, args
        assert result.stderr.startswith(words), result.stderr
        assert len(result.stderr.splitlines()) == 1, result.stderr


def test_a_stopped_run_is_inconclusive_and_interrupted() -> None:
    """``stop`` asked true after 12 sets: no 13th set, inconclusive, interrupted, and the mean
    and interval of the 12."""
    a, b = contender("heuristic"), contender("random")
    tests = game_tests(compare_games(["briscola"], a, b), 0.0, None)
    comparison = Comparison(a, b, tests, 1e-9, 1e-9, 1000)
    run_comparison(comparison, seed=6, stop=lambda: comparison.sets >= 12)
    summary = comparison.summary()
    assert (summary["decision"], summary["sets"], summary["interrupted"]) == (
        "inconclusive", 12, True)
    assert summary["ci_low"] < summary["mean_difference"] < summary["ci_high"]


def interrupting(after_sets: int) -> Callable[..., Comparison]:
    """``run_comparison`` that sends this process a SIGINT once ``after_sets`` sets count."""
    def run(comparison: Comparison, **options: Any) -> Comparison:
        """Run the comparison, the signal sent from its per-set hook."""
        shown = options.pop("on_set")

        def on_set(state: Comparison) -> None:
            """Show the set, then interrupt after the chosen one."""
            shown(state)
            if state.sets == after_sets:
                os.kill(os.getpid(), signal.SIGINT)

        return run_comparison(comparison, on_set=on_set, **options)
    return run


def test_ctrl_c_gives_the_json_of_the_sets_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    """--json and a SIGINT after the 12th set: the set being played was the last, the JSON has
    the 12 sets' figures and ``interrupted``, exit code 130, the note on stderr, and Ctrl-C's
    handler is put back."""
    monkeypatch.setattr(compare_cli, "run_comparison", interrupting(12))
    handler = signal.getsignal(signal.SIGINT)
    result = arena("compare", "heuristic", "random", "--game", "briscola", "--json",
                   "--seed", "6", "--alpha", "1e-9", "--beta", "1e-9")
    assert result.exit_code == compare_cli.INTERRUPTED_EXIT, result.stderr
    data = json.loads(result.stdout)
    assert list(data) == KEYS
    assert (data["decision"], data["sets"], data["interrupted"]) == ("inconclusive", 12, True)
    assert data["lower_bound"] < data["llr"] < data["upper_bound"]
    assert data["ci_low"] < data["mean_difference"] < data["ci_high"]
    assert result.stderr == compare_cli.STOPPING_NOTE + "\n"
    assert signal.getsignal(signal.SIGINT) is handler


class Terminal:
    """A pseudo-terminal for a program's stderr, read on a thread into ``output``."""

    def __init__(self) -> None:
        """Open the terminal (200 columns, so the live bar is not cut short)."""
        self.master, self.slave = pty.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
        self.output = bytearray()
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)

    def start(self) -> None:
        """Close this side's copy of the program's end and read until it is closed."""
        os.close(self.slave)
        self.reader.start()

    def _read(self) -> None:
        """Append what the program writes until it closes the terminal."""
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                chunk = b""
            with self.changed:
                self.output += chunk
                self.changed.notify_all()
            if not chunk:
                return

    def wait_for(self, pattern: bytes, program: subprocess.Popen[bytes]) -> re.Match[bytes]:
        """The first match of ``pattern`` in the output, waiting while the program runs."""
        with self.changed:
            found = self.changed.wait_for(
                lambda: re.search(pattern, self.output) or program.poll() is not None,
                timeout=WAIT_S)
        match = re.search(pattern, self.output)
        assert found and match, self.output.decode(errors="replace")
        return match

    def close(self) -> None:
        """Stop reading and close the terminal."""
        self.reader.join(timeout=WAIT_S)
        os.close(self.master)


def test_ctrl_c_stops_a_real_run_between_sets_with_the_result_so_far() -> None:
    """``arena compare`` in a process of its own, its live bar on a terminal: Ctrl-C (SIGINT to
    its process group) once the bar shows a set played stops it after the set being played,
    prints the result so far as inconclusive and interrupted, exit code 130. The random policy
    against itself with margins -1 and +1 never decides (every set's difference is 0, halfway),
    so only the interrupt can end it."""
    terminal = Terminal()
    program = subprocess.Popen(
        [str(ARENA), "compare", "random", "random", "--game", "scopa", "--delta0", "-1",
         "--delta1", "1", "--max-sets", "100000"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=terminal.slave,
        env={**os.environ, "TERM": "xterm", "COLUMNS": "200"},
        start_new_session=True, preexec_fn=default_sigint)
    terminal.start()
    try:
        shown = int(terminal.wait_for(rb"sets ([1-9][0-9]*)/100000", program)[1])
        os.killpg(program.pid, signal.SIGINT)
        output, _ = program.communicate(timeout=WAIT_S)
    finally:
        if program.poll() is None:
            os.killpg(program.pid, signal.SIGKILL)
            program.wait()
        terminal.close()
    assert program.returncode == compare_cli.INTERRUPTED_EXIT, output.decode()
    lines = output.decode().splitlines()
    assert lines[0] == "A random against B random"
    verdict = re.fullmatch(r"inconclusive: interrupted \(Ctrl-C\) after (\d+) sets "
                           r"\(--max-sets 100000\): (neither bound was reached|"
                           r"the test decides only from 10 sets on)", lines[1])
    assert verdict, lines
    sets = int(verdict[1])
    assert shown <= sets < 100000
    assert lines[2] == f"sets {sets}, LLR +0.000 (bounds -2.944, +2.944)"
    assert lines[3] == ("mean difference 0.00 (not enough data) in scopa return per deal, "
                        "95% interval")
    assert lines[4].startswith("win rate of random over the sets 50.0% (")
    assert compare_cli.STOPPING_NOTE.encode() in terminal.output
