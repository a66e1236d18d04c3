"""Text a new user reads without guessing: the card legend, the table's cards and the scopa
flag in a match display, and "did you mean" for mistyped game ids and parameters."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from arena.cli import app
from arena.cli.words import counted
from arena.games import GameError, get_spec, load_game
from arena.games.params import did_you_mean

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process, as on a wide terminal."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def test_a_match_display_explains_the_card_letters() -> None:
    """The header has a legend line for the rank letters and suit symbols of the deck."""
    result = run("play", "scopa", "--seed", "3")
    assert result.exit_code == 0, result.output
    legend = next(line for line in result.stdout.splitlines() if line.startswith("cards: "))
    for words in ("F fante (jack)", "C cavallo (knight)", "R re (king)", "A asso (ace)",
                  "♦ denari (coins)", "♠ spade (swords)"):
        assert words in legend
    french = run("play", "misere").stdout
    assert "cards: T ten · J jack · Q queen · K king · A ace; ♣ clubs" in french


def test_scopa_names_the_table_cards_and_the_scopa_flag() -> None:
    """The cards dealt face up are named as the table's, and a capture that clears the table
    says scopa instead of ending with a bare 1 (an ordinary capture with a bare 0)."""
    lines = run("play", "scopa", "--seed", "3").stdout.splitlines()
    table = [line for line in lines if "dealt" in line and "seat" not in line]
    assert table and all(line.startswith("  dealt to the table ") for line in table)
    captures = [line for line in lines if " captures " in line]
    assert any(line.endswith(" · scopa") for line in captures)
    assert not any(line.endswith((" 0", " 1")) for line in captures)


def test_mistyped_game_ids_and_parameters_get_suggestions() -> None:
    """The registry, the parameters, and the CLI's own lists suggest the closest names."""
    with pytest.raises(GameError, match=r"unknown game 'briscla' \(did you mean 'briscola'"):
        get_spec("briscla")
    with pytest.raises(GameError, match=r"unknown parameter 'hand' \(did you mean 'hands'\?\)"):
        load_game("briscola", params={"hand": "3"})
    assert did_you_mean("zzzz", ["briscola"]) == ""
    played = run("play", "scopa", "-p", "scopa_on_last=true")
    assert played.exit_code == 2
    assert "did you mean 'scopa_on_last_play'?" in played.stderr
    choice = run("play", "misere", "--param", "rank_order=bridg")
    assert choice.exit_code == 2
    assert choice.stderr.count("\n") == 1
    assert "rank_order='bridg' is invalid" in choice.stderr
    assert choice.stderr.rstrip().endswith("(did you mean 'bridge'?)")
    variant = run("images", "build-base", "--variant", "opnspiel")
    assert variant.exit_code == 2 and "did you mean 'openspiel'?" in variant.stderr


def test_bot_check_suggests_a_game() -> None:
    """``arena bot check --game`` with a mistyped id names the id it was probably meant as."""
    result = run("bot", "check", "sample_bots/python/random", "--game", "briscla")
    assert result.exit_code == 2
    assert "did you mean 'briscola'" in result.stderr


def test_leaderboard_of_an_unknown_game_says_so(tmp_path: Path) -> None:
    """An unknown game id is bad input, not a game that has no finished match yet."""
    result = run("leaderboard", "--game", "nogame", "--db", f"{tmp_path}/arena.db")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: unknown game 'nogame'")
    assert "no finished match" not in result.stderr
    typo = run("leaderboard", "--game", "scpoa", "--db", f"{tmp_path}/arena.db")
    assert "did you mean 'scopa'" in typo.stderr


def test_one_game_and_one_match_are_singular(tmp_path: Path) -> None:
    """``league create`` counts in words that agree with the number: "1 game, 1 match"."""
    made = run("league", "create", "duel", "--bot", "random", "--bot", "heuristic",
               "--games", "briscola", "--db", f"{tmp_path}/arena.db")
    assert made.exit_code == 0, made.output
    assert "heuristic (policy)), 1 game, 1 match, secret deals" in made.stdout
    assert counted(1, "match", "matches") == "1 match" and counted(0, "bot") == "0 bots"
