"""``arena play --html/--open`` and ``arena replay FILE --html/--open/--deal``: the page is
written, the browser is asked to open it, and misuse is one clear error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app
from arena.match import MatchRecord
from arena.match.results import read_records
from arena.server.web.standalone import replay_page

runner = CliRunner()


def test_play_writes_the_replay_page(tmp_path: Path) -> None:
    """``arena play --save --html`` writes the record and the page of that record."""
    page, saved = tmp_path / "replay.html", tmp_path / "match.json"
    result = runner.invoke(app, ["play", "briscola", "--seed", "8", "--policy", "random",
                                 "--save", str(saved), "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert f"replay page written to {page}" in result.output
    assert page.read_text("utf-8") == replay_page(MatchRecord.load(saved))


def test_play_json_keeps_stdout_for_the_record(tmp_path: Path) -> None:
    """With --json, stdout is the record alone; where the page went is said on stderr."""
    page = tmp_path / "replay.html"
    result = runner.invoke(app, ["play", "briscola", "--seed", "8", "--json", "--html",
                                 str(page)])
    assert result.exit_code == 0, result.output
    record = MatchRecord.from_json(result.stdout)
    assert page.read_text("utf-8") == replay_page(record)
    assert "replay page written" in result.stderr


def test_replay_writes_the_page_of_a_chosen_deal(tmp_path: Path) -> None:
    """``arena replay SET --deal 2 --html`` writes the second deal's page; a deal past the
    end is one error line."""
    saved, page = tmp_path / "set.json", tmp_path / "deal2.html"
    played = runner.invoke(app, ["play", "briscola", "--seed", "5", "--duplicate",
                                 "--save", str(saved)])
    assert played.exit_code == 0, played.output
    result = runner.invoke(app, ["replay", str(saved), "--deal", "2", "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert page.read_text("utf-8") == replay_page(read_records(saved)[1])
    wrong = runner.invoke(app, ["replay", str(saved), "--deal", "3", "--html", str(page)])
    assert wrong.exit_code == 2
    assert wrong.stderr.strip() == f"error: --deal 3: {saved} holds 2 deals"


def test_misuse_is_one_clear_error(tmp_path: Path) -> None:
    """--html with --duplicate, and a page that cannot be written, are bad input."""
    duplicate = runner.invoke(app, ["play", "briscola", "--duplicate", "--html",
                                    str(tmp_path / "x.html")])
    assert duplicate.exit_code == 2
    assert duplicate.stderr.startswith("error: --html and --open write one deal's replay")
    assert not (tmp_path / "x.html").exists()
    unwritable = runner.invoke(app, ["play", "briscola", "--html",
                                     str(tmp_path / "missing" / "x.html")])
    assert unwritable.exit_code == 2
    assert "error: cannot write the replay page" in unwritable.stderr


def test_open_hands_the_page_to_the_browser(tmp_path: Path) -> None:
    """--open asks the browser named by $BROWSER (here a script noting its argument) to open
    the page's file URL; without --html the page goes to a temporary file."""
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
    browser.chmod(0o755)
    saved, page = tmp_path / "match.json", tmp_path / "replay.html"
    env = {**os.environ, "BROWSER": str(browser)}
    arena = [str(Path(sys.executable).parent / "arena")]
    subprocess.run([*arena, "play", "briscola", "--seed", "3", "--save", str(saved), "--open"],
                   env=env, check=True, capture_output=True, timeout=120)
    subprocess.run([*arena, "replay", str(saved), "--html", str(page), "--open"], env=env,
                   check=True, capture_output=True, timeout=120)
    first, second = opened.read_text().split()
    assert first.startswith("file:///") and first.endswith(".html")
    temporary = Path(first.removeprefix("file://"))
    assert temporary.read_text("utf-8") == page.read_text("utf-8")
    temporary.unlink()
    assert second == page.resolve().as_uri()
