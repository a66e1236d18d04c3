"""A bot whose Ready name, debug notes, stderr, gRPC status and bot.toml name are terminal
escapes, bidi overrides and rich markup: the real commands run on a pseudo-terminal, and no raw
control, C1 or bidi byte reaches it (rich's own colours aside); the escaped forms are shown,
markup is shown as written, and JSON keeps the very text (as ``\\u`` escapes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.textbot import (
    ESCAPED,
    HOSTILE,
    MARKUP,
    NAME_TEXT,
    assert_escaped_shown,
    assert_terminal_safe,
    run_in_terminal,
    write_text_bot,
)

MARKER = "MARK-7f3a"
"""Appended to the bot's texts, to find them."""

NAME_ESCAPED = ("hostile\\x1b[2J\\x9b31m\\u202e[bold]b[/bold]",)
"""bot.toml's name as it must be shown: escaped, its markup as written."""


@pytest.fixture(scope="module")
def hostile_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile bot's folder."""
    return write_text_bot(tmp_path_factory.mktemp("text-bot") / "bot", MARKER)


@pytest.fixture(scope="module")
def played(hostile_bot: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``arena play`` of the hostile bot against random on a terminal: the saved record and
    what the terminal showed."""
    record = tmp_path_factory.mktemp("record") / "match.json"
    code, output = run_in_terminal(["play", "briscola", "--seed", "3", "--bot", str(hostile_bot),
                                    "--policy", "random", "--save", str(record)])
    assert code == 1, output
    return record, assert_terminal_safe(output, "arena play")


def test_play_shows_the_bot_s_texts_escaped(played: tuple[Path, str]) -> None:
    _, shown = played
    assert_escaped_shown(shown, "arena play", (*ESCAPED, *NAME_ESCAPED))
    assert MARKUP in shown and MARKER in shown
    assert "CRASH" in shown


def test_the_record_keeps_every_text_and_prints_safely(hostile_bot: Path,
                                                       played: tuple[Path, str]) -> None:
    record_file, _ = played
    saved = record_file.read_bytes()
    assert b"\x1b" not in saved and b"\xc2\x9b" not in saved and b"\xe2\x80\xae" not in saved
    code, output = run_in_terminal(["play", "briscola", "--seed", "3", "--bot", str(hostile_bot),
                                    "--policy", "random", "--json"])
    assert code == 1
    shown = assert_terminal_safe(output, "arena play --json")
    record = json.loads(shown[shown.index("{"):shown.rindex("}") + 1])
    seat = record["seats"][0]
    said = seat["agent"]["ready"]["bot_name"]
    assert len(said) > len(HOSTILE) // 2 and (HOSTILE + MARKER).startswith(said)  # capped
    assert seat["agent"]["name"] == NAME_TEXT
    assert HOSTILE + MARKER in seat["stderr"] and HOSTILE + MARKER in seat["detail"]
    assert {note["text"] for note in record["debug"] if note["seat"] == 0} == {HOSTILE + MARKER}


def test_replay_shows_the_bot_s_texts_escaped(played: tuple[Path, str]) -> None:
    record_file, _ = played
    code, output = run_in_terminal(["replay", str(record_file)])
    assert code == 0, output
    shown = assert_terminal_safe(output, "arena replay")
    assert_escaped_shown(shown, "arena replay", (*ESCAPED, *NAME_ESCAPED))
    assert "replay verified" in shown


def test_bot_check_shows_the_bot_s_texts_escaped(hostile_bot: Path) -> None:
    code, output = run_in_terminal(["bot", "check", str(hostile_bot)])
    assert code == 1, output
    shown = assert_terminal_safe(output, "arena bot check")
    assert_escaped_shown(shown, "arena bot check", (*ESCAPED, *NAME_ESCAPED))
    handshake = next(line for line in shown.splitlines() if line.startswith("PASS handshake"))
    assert "\\x1b]0;pwned-title" in handshake and "\\u202eevil\\u202c" in handshake
    legal = next(line for line in shown.splitlines() if line.startswith("FAIL legal play"))
    assert "its last output: " in legal and MARKUP in legal

    code, output = run_in_terminal(["bot", "check", str(hostile_bot), "--json"])
    assert code == 1
    shown = assert_terminal_safe(output, "arena bot check --json")
    report = json.loads(shown[shown.index("{"):shown.rindex("}") + 1])
    assert report["name"] == NAME_TEXT
    assert any(HOSTILE + MARKER in check["detail"] for check in report["checks"])


def test_league_status_leaderboard_and_report_show_names_escaped(
        hostile_bot: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    code, output = run_in_terminal(["league", "create", "hostile", "--db", db, "--bot",
                                    str(hostile_bot), "--bot", "random", "--games", "briscola"])
    assert code == 0, output
    assert_escaped_shown(assert_terminal_safe(output, "arena league create"),
                         "arena league create", NAME_ESCAPED)
    code, output = run_in_terminal(["league", "run", "hostile", "--db", db, "--workers", "1"])
    assert code == 0, output
    assert "1/1 matches finished" in assert_terminal_safe(output, "arena league run", live=True)
    for args in (["league", "status", "hostile"], ["leaderboard"]):
        code, output = run_in_terminal([*args, "--db", db])
        assert code == 0, output
        shown = assert_terminal_safe(output, f"arena {' '.join(args)}")
        if args == ["leaderboard"]:
            assert_escaped_shown(shown, "arena leaderboard", NAME_ESCAPED)
    for args in (["league", "status", "hostile"], ["leaderboard"]):
        code, output = run_in_terminal([*args, "--db", db, "--json"])
        assert code == 0, output
        json.loads(assert_terminal_safe(output, f"arena {' '.join(args)} --json"))

    out = tmp_path / "report"
    code, output = run_in_terminal(["report", "hostile", "--db", db, "--out", str(out)])
    assert code == 0, output
    shown = assert_terminal_safe(output, "arena report")
    assert_escaped_shown(shown, "arena report", NAME_ESCAPED)
    for name in ("report.md", "report.html", "report.json"):
        text = assert_terminal_safe((out / name).read_bytes(), name)
        assert "hostile" in text
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "hostile\\\\x1b\\[2J\\\\x9b31m\\\\u202e\\[bold\\]b\\[/bold\\]" in markdown
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "hostile\\x1b[2J\\x9b31m\\u202e[bold]b[/bold]" in html
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert any(NAME_TEXT in str(rating["bot"]) for rating in data["overall"])


def test_an_unexpected_error_quoting_a_bot_prints_its_traceback_escaped(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import arena.cli
    import arena.cli.play

    def broken(path: Path) -> None:
        """A fault of the arena whose message quotes a bot."""
        raise RuntimeError(f"the bot said {HOSTILE}")

    monkeypatch.setattr(arena.cli.play, "read_records", broken)
    result = CliRunner().invoke(arena.cli.app, ["replay", str(tmp_path / "x.json")])
    assert result.exit_code == 1
    assert "Traceback" in result.stderr and "RuntimeError: the bot said \\x1b]0;pwned" in \
        result.stderr
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr


def test_web_pages_show_a_bot_s_name_escaped(hostile_bot: Path, tmp_path: Path) -> None:
    from urllib.parse import quote

    import httpx

    from arena.league.create import create_league
    from arena.league.local import run_league
    from arena.store import open_store
    from tests.server.api.test_log_privacy import web_server

    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, "hostile", [str(hostile_bot), "random"], games=["briscola"])
    assert run_league(url, "hostile", workers=1).status is not None
    with web_server(url) as base, httpx.Client(base_url=base, timeout=60) as web:
        league = web.get("/leagues/hostile")
        match_id = league.text.split('href="/matches/')[1].split('"')[0]
        for path in ("/", "/games/briscola", "/leagues", "/leagues/hostile",
                     "/leagues/hostile/report", f"/matches/{match_id}",
                     f"/bots/{quote(NAME_TEXT)}"):
            response = web.get(path)
            assert response.status_code == 200, path
            page = assert_terminal_safe(response.content, path)
            assert "hostile\\x1b[2J\\x9b31m\\u202e[bold]b[/bold]" in page, path
