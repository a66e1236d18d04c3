"""The ``arena`` command line: games, play, replay, and one-line errors for bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from arena import __version__
from arena.cli import app
from arena.games import EventKind, game_ids, get_spec
from arena.match import MatchRecord, replay

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process, as on a wide terminal."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def record_of(*args: str) -> MatchRecord:
    """The record that ``arena play ... --json`` prints."""
    result = run("play", *args, "--json")
    assert result.exit_code == 0, result.output
    return MatchRecord.from_json(result.stdout)


def arena_executable() -> str:
    """The installed ``arena`` console script."""
    candidate = Path(sysconfig.get_path("scripts")) / "arena"
    found = str(candidate) if candidate.exists() else shutil.which("arena")
    assert found, "the arena command is not installed: pip install -e ."
    return found


# --- arena games ---------------------------------------------------------------------------


def test_games_table_lists_every_game() -> None:
    result = run("games")
    assert result.exit_code == 0
    for game_id in game_ids():
        spec = get_spec(game_id)
        assert game_id in result.stdout
        source = "docs/games/" if spec.origin == "arena" else f"from {spec.origin}"
        assert source in result.stdout
    assert "seats 2 (default), 3, 4" in result.stdout
    assert "three_player_fix=remove_2_bastoni (one of remove_2_bastoni, leave_last_card)" \
        in result.stdout


def test_games_json() -> None:
    result = run("games", "--json")
    assert result.exit_code == 0
    games = json.loads(result.stdout)
    assert [game["id"] for game in games] == game_ids()
    briscola = next(game for game in games if game["id"] == "briscola")
    assert briscola["title"] == "Briscola"
    assert briscola["seats"] == [2, 3, 4]
    assert briscola["default_seats"] == 2
    assert briscola["page"] == "docs/games/briscola.md"
    assert "section" not in briscola  # a number in sources the repository does not ship
    assert briscola["summary"]
    hands = next(param for param in briscola["params"] if param["name"] == "hands")
    assert hands["default"] == 1
    assert hands["kind"] == "int"
    assert hands["valid"] == "an integer 1..1000"
    fix = next(param for param in briscola["params"] if param["name"] == "three_player_fix")
    assert fix["choices"] == ["remove_2_bastoni", "leave_last_card"]


# --- arena play ----------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "tricks"), [(2, 20), (3, 13), (4, 10)])
def test_play_shows_tricks_winners_and_final_scores(seats: int, tricks: int) -> None:
    args = ("briscola", "-n", str(seats), "--seed", "5", "--policy", "heuristic",
            "--policy", "random")
    record = record_of(*args)
    state = replay(record)
    winners = [e.seat for e in state.full_events() if e.kind == EventKind.TRICK]
    result = run("play", *args)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    trick_lines = [line for line in lines if line.startswith("  trick ")]
    assert len(trick_lines) == tricks == len(winners)
    for number, (line, winner) in enumerate(zip(trick_lines, winners, strict=True), 1):
        assert line.startswith(f"  trick {number}  ")
        assert line.count("seat ") == seats + 1
        assert line.endswith(f"→ seat {winner} takes {line.split(' takes ')[1]}")
    assert lines[0].startswith(f"Briscola · briscola · {seats} seats · seed 5")
    assert "Hand 1 · dealer seat" in result.stdout
    assert "hand score" in result.stdout
    assert "Final scores" in result.stdout
    table_rows = [line for line in lines if line.startswith("│")]
    assert len(table_rows) == seats
    for seat, row in enumerate(table_rows):
        cells = [cell.strip() for cell in row.strip("│").split("│")]
        assert cells[0] == str(seat)
        assert cells[1] == record.policies[seat]
        assert float(cells[-1]) == record.returns[seat]
    best = max(record.returns)
    if min(record.returns) == best:
        assert "result: draw" in result.stdout
    else:
        assert f"winner: seat {record.returns.index(best)}" in result.stdout


def test_play_defaults_to_heuristic_and_seed_one() -> None:
    record = record_of("briscola")
    assert record.seed == 1
    assert record.policies == ("heuristic", "heuristic")


def test_play_passes_parameters_and_shows_them() -> None:
    record = record_of("briscola", "-p", "hands=2", "--param", "trump_swap=seven")
    assert record.params["hands"] == 2
    assert record.params["trump_swap"] == "seven"
    result = run("play", "briscola", "-p", "hands=2", "--param", "trump_swap=seven")
    assert "parameters: hands=2, trump_swap=seven" in result.stdout
    assert "Hand 2 · dealer seat 0" in result.stdout


def test_play_json_save_and_replay_agree(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    printed = record_of("briscola-31", "-n", "3", "--seed", "9", "--policy", "random",
                        "--save", str(path))
    saved = MatchRecord.load(path)
    assert saved == printed
    result = run("replay", str(path))
    assert result.exit_code == 0, result.output
    assert "replay verified" in result.stdout
    assert "Final scores" in result.stdout
    assert replay(saved).returns() == list(printed.returns)


def test_play_shows_the_same_match_as_replay(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    played = run("play", "briscola", "-n", "4", "--seed", "3", "--save", str(path))
    replayed = run("replay", str(path))
    assert played.exit_code == replayed.exit_code == 0
    assert f"record saved to {path}" in played.stdout
    assert played.stdout.split("record saved")[0] == replayed.stdout.split("replay verified")[0]


def test_replay_detects_a_tampered_record(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    assert run("play", "briscola", "--seed", "4", "--save", str(path)).exit_code == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    data["returns"] = [-value for value in data["returns"]]
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run("replay", str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: the replayed returns")
    assert len(result.stderr.splitlines()) == 1
    assert result.stdout == ""


def test_replay_detects_a_swapped_action(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    assert run("play", "briscola", "--seed", "4", "--save", str(path)).exit_code == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    data["actions"][0], data["actions"][1] = data["actions"][1], data["actions"][0]
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run("replay", str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: recorded action 1 of 40 cannot be replayed")
    assert len(result.stderr.splitlines()) == 1


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"arena {__version__}"


# --- bad input -----------------------------------------------------------------------------


def bad_record(tmp_path: Path) -> Path:
    """A file that is not JSON."""
    path = tmp_path / "bad.json"
    path.write_text("{not json", encoding="utf-8")
    return path


def wrong_format(tmp_path: Path) -> Path:
    """A JSON file that is not a match record."""
    path = tmp_path / "other.json"
    path.write_text('{"format": "other"}', encoding="utf-8")
    return path


BAD_INPUT = [
    (["play", "nogame"], "unknown game 'nogame'; valid games: "),
    (["play", "briscola", "-n", "7"], "7 players is not allowed; valid seat counts: 2, 3, 4"),
    (["play", "briscola", "-n", "two"], "'--players'"),
    (["play", "briscola", "-p", "colour=red"], "unknown parameter 'colour'; valid parameters:"),
    (["play", "briscola", "-p", "hands=many"], "expected an integer 1..1000"),
    (["play", "briscola", "-p", "trump_swap=ace"], "expected one of none, seven, two"),
    (["play", "briscola", "-p", "hands"], "malformed --param 'hands': expected key=value"),
    (["play", "briscola", "-p", "=3"], "malformed --param '=3'"),
    (["play", "briscola", "-p", "hands=2", "-p", "hands=3"], "--param hands is given twice"),
    (["play", "briscola", "--policy", "smart"],
     "unknown policy 'smart'; valid policies: random, heuristic"),
    (["play", "briscola", "--policy", "random", "--policy", "random", "--policy", "random"],
     "3 policies given for 2 seats"),
    (["play", "briscola", "--seed", "-1"], "'--seed'"),
    (["play", "briscola", "--seed", "lucky"], "'--seed'"),
    (["play", "briscola", "--seed", "18446744073709551616"], "'--seed'"),
    (["play", "briscola", "--sed", "3"], "No such option: --sed"),
    (["play"], "Missing argument 'GAME'"),
    (["nocommand"], "No such command 'nocommand'"),
    (["play", "briscola", "--save", "{tmp}/no/such/folder/match.json"],
     "cannot write match record"),
    (["play", "briscola", "--save", "{tmp}"], "'--save'"),
    (["replay", "{tmp}/missing.json"], "cannot read match record"),
    (["replay", "{tmp}"], "cannot read match record"),
    (["replay", "{bad}"], "not a match record: invalid JSON"),
    (["replay", "{other}"], "not a match record: the key 'format'"),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT)
def test_bad_input_gives_one_error_line(tmp_path: Path, args: list[str], message: str) -> None:
    paths = {"tmp": str(tmp_path), "bad": str(bad_record(tmp_path)),
             "other": str(wrong_format(tmp_path))}
    result = run(*(arg.format(**paths) for arg in args))
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert "Traceback" not in result.output


def test_no_command_shows_help() -> None:
    result = run()
    assert result.exit_code == 2
    assert "Usage" in result.output
    assert "play" in result.output


# --- the installed command -----------------------------------------------------------------


def test_installed_command_plays_and_reports_bad_input(tmp_path: Path) -> None:
    arena = arena_executable()
    path = tmp_path / "match.json"
    played = subprocess.run([arena, "play", "briscola", "-n", "3", "--seed", "7", "--save",
                             str(path)], capture_output=True, text=True, check=False,
                            encoding="utf-8")
    assert played.returncode == 0, played.stderr
    assert played.stdout.count("\n  trick ") == 13
    replayed = subprocess.run([arena, "replay", str(path)], capture_output=True, text=True,
                              check=False, encoding="utf-8")
    assert replayed.returncode == 0, replayed.stderr
    assert "replay verified" in replayed.stdout
    bad = subprocess.run([arena, "play", "briscola", "--seed", "x"], capture_output=True,
                         text=True, check=False, encoding="utf-8")
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.count("\n") == 1
    assert bad.stderr.startswith("error: ")


def command_paths(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command of a command group, as the words that name it, groups included."""
    paths = [prefix]
    for name, command in sorted(group.commands.items()):
        if hasattr(command, "commands"):
            paths += command_paths(command, (*prefix, name))
        else:
            paths.append((*prefix, name))
    return paths


def test_every_command_prints_its_help() -> None:
    """``--help`` of every command and group renders (option texts are rich markup)."""
    paths = command_paths(typer.main.get_command(app))
    assert ("bot", "build") in paths and len(paths) > 20
    for path in paths:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output, result.exception)
        assert "Usage" in result.output, path
