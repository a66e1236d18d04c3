"""Bot folders: bot.toml is read and checked, every problem named with the bot path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.agents import BotSeat
from arena.bots import BotConfigError, BotManifest
from arena.games import load_game

GOOD = """\
name = "mc"
version = "1.2.0"
language = "python"
command = ["python3", "bot.py", "--fast"]
games = ["briscola", "tressette"]
"""


def write(folder: Path, text: str) -> Path:
    """A bot folder with this bot.toml."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(text, encoding="utf-8")
    return folder


def test_a_bot_folder_is_read(tmp_path: Path) -> None:
    folder = write(tmp_path / "mc", GOOD)
    manifest = BotManifest.load(folder)
    assert manifest.name == "mc"
    assert manifest.version == "1.2.0"
    assert manifest.language == "python"
    assert manifest.command == ("python3", "bot.py", "--fast")
    assert manifest.folder == folder.resolve()
    assert manifest.source == str(folder)
    assert manifest.describe() == {"kind": "bot", "name": "mc", "version": "1.2.0",
                                   "language": "python", "path": str(folder)}


def test_the_manifest_file_itself_may_be_given(tmp_path: Path) -> None:
    folder = write(tmp_path / "mc", GOOD)
    assert BotManifest.load(folder / "bot.toml").folder == folder.resolve()


def test_python_runs_with_the_arena_interpreter(tmp_path: Path) -> None:
    manifest = BotManifest.load(write(tmp_path / "mc", GOOD))
    assert manifest.argv() == [sys.executable, "bot.py", "--fast"]
    other = BotManifest.load(write(tmp_path / "go", GOOD.replace('"python3", ', '"./run", ')))
    assert other.argv() == ["./run", "bot.py", "--fast"]


def test_games_are_checked(tmp_path: Path) -> None:
    manifest = BotManifest.load(write(tmp_path / "mc", GOOD))
    assert manifest.plays("briscola")
    assert not manifest.plays("scopa")
    with pytest.raises(BotConfigError, match=r"bot mc \(.*mc\) does not play scopa: its "
                                             r"bot.toml lists games briscola, tressette"):
        BotSeat(manifest).check(load_game("scopa"))


def test_matches_at_once_is_read_and_defaults_to_one(tmp_path: Path) -> None:
    assert BotManifest.load(write(tmp_path / "one", GOOD)).matches_at_once == 1
    many = BotManifest.load(write(tmp_path / "many", GOOD + "matches_at_once = 16\n"))
    assert many.matches_at_once == 16


def test_games_default_to_every_game(tmp_path: Path) -> None:
    text = GOOD.replace('games = ["briscola", "tressette"]\n', "")
    manifest = BotManifest.load(write(tmp_path / "any", text))
    assert manifest.games == ("*",)
    assert manifest.plays("scopa")


@pytest.mark.parametrize(("text", "message"), [
    ("name = ", "bot.toml is not valid TOML"),
    (GOOD.replace('name = "mc"\n', ""), "bot.toml has no 'name'"),
    (GOOD.replace('version = "1.2.0"', "version = 3"), "'version' must be a non-empty string"),
    (GOOD.replace('language = "python"', 'language = " "'), "'language' must be a non-empty"),
    (GOOD.replace('command = ["python3", "bot.py", "--fast"]\n', ""), "has no 'command'"),
    (GOOD.replace('["python3", "bot.py", "--fast"]', '"python3 bot.py"'),
     "'command' must be a non-empty list of non-empty strings"),
    (GOOD.replace('["python3", "bot.py", "--fast"]', "[]"), "'command' must be a non-empty"),
    (GOOD.replace('["briscola", "tressette"]', '["briscola", 3]'), "'games' must be"),
    (GOOD + "matches_at_once = 0\n", "'matches_at_once' must be an integer from 1 to 64, got 0"),
    (GOOD + "matches_at_once = 65\n", "'matches_at_once' must be an integer from 1 to 64"),
    (GOOD + 'matches_at_once = "4"\n', "'matches_at_once' must be an integer .*got '4'"),
    (GOOD + "matches_at_once = true\n", "'matches_at_once' must be an integer .*got True"),
])
def test_bad_manifests_are_named(tmp_path: Path, text: str, message: str) -> None:
    folder = write(tmp_path / "bad", text)
    with pytest.raises(BotConfigError, match=message) as caught:
        BotManifest.load(folder)
    assert str(caught.value).startswith(f"bot {folder}: ")


def test_a_missing_path_is_named(tmp_path: Path) -> None:
    with pytest.raises(BotConfigError, match=r"bot .*nowhere: no such file or directory"):
        BotManifest.load(tmp_path / "nowhere")


def test_a_folder_without_manifest_is_named(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(BotConfigError, match=r"bot .*empty: no bot.toml in this folder"):
        BotSeat.from_path(tmp_path / "empty")
