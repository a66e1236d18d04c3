"""The rules pages docs/games/*.md: up to date with the game modules (a stale page fails), cited
by the modules' docstrings and by ``arena games``, and linked from docs/rules.md."""

from __future__ import annotations

import importlib
import inspect
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.game_pages import (
    PageError,
    module_docstring,
    page_of,
    pages,
    split_docstring,
    stale_pages,
)
from arena.games import game_ids, get_spec
from arena.games.registry import BUILTIN_MODULES

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "games"


def check(folder: Path) -> subprocess.CompletedProcess[str]:
    """``python -m arena.cli.game_pages --check --out folder``, to its end."""
    return subprocess.run([sys.executable, "-m", "arena.cli.game_pages", "--check",
                           "--out", str(folder)], capture_output=True, text=True, check=False,
                          cwd=ROOT)


def test_the_committed_pages_are_fresh() -> None:
    """Generating the pages from the code gives exactly the committed docs/games."""
    result = check(PAGES)
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in PAGES.glob("*.md")) == sorted(pages())


def test_the_check_names_a_stale_a_missing_and_a_left_over_page(tmp_path: Path) -> None:
    """An edited page, a removed one and one no module makes each fail the check by name."""
    folder = tmp_path / "games"
    shutil.copytree(PAGES, folder)
    briscola = folder / "briscola.md"
    briscola.write_text(briscola.read_text(encoding="utf-8").replace(
        "remove_2_bastoni", "leave_last_card"), encoding="utf-8")
    (folder / "vecchia.md").unlink()
    (folder / "consina.md").write_text("# Consina\n", encoding="utf-8")
    result = check(folder)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 3
    assert any(line.startswith("error: ") and "briscola.md: stale" in line for line in lines)
    assert any("vecchia.md: missing" in line for line in lines)
    assert any("consina.md: no game module makes it" in line for line in lines)
    assert stale_pages(PAGES) == []


def test_writing_the_pages_makes_the_check_pass(tmp_path: Path) -> None:
    """The command writes every page into an empty folder, and they check as fresh."""
    folder = tmp_path / "out"
    written = subprocess.run([sys.executable, "-m", "arena.cli.game_pages", "--out",
                              str(folder)], capture_output=True, text=True, check=True, cwd=ROOT)
    assert len(written.stdout.splitlines()) == len(BUILTIN_MODULES)
    assert check(folder).returncode == 0


@pytest.mark.parametrize("game_id", ["briscola", "briscola-31", "scopone", "tressette-toro"])
def test_a_page_holds_the_game_seats_and_every_parameter(game_id: str) -> None:
    """A game's section: its title, its seats (default first) and each parameter's default
    and valid values as the code gives them."""
    spec = get_spec(game_id)
    page_file = page_of(spec)
    assert page_file is not None
    text = (ROOT / page_file).read_text(encoding="utf-8")
    section = text.split(f"\n## {game_id}\n", 1)[1].split("\n## ", 1)[0]
    assert f"**{spec.title}**" in section
    seats = ", ".join(str(seats) for seats in spec.seats[1:])
    assert f"- Seats: {spec.seats[0]} (default){', ' + seats if seats else ''}." in section
    for param in spec.params:
        default = str(param.default).lower() if isinstance(param.default, bool) \
            else str(param.default)
        assert f"| `{param.name}` | `{default}` | {param.describe()} |" in section


def test_briscola_page_reads_as_its_docstring() -> None:
    """The page's title and summary are the module's docstring, without its citation."""
    text = (PAGES / "briscola.md").read_text(encoding="utf-8")
    assert "\n# Briscola (2, 3 or 4 seats) and Briscola a 31\n" in text
    assert "- 4 seats: fixed pairs, partners opposite (seats 0+2 against 1+3)." in text
    assert "| 40     | declare 31 (``briscola-31`` only)           |" in text
    assert "arena/games/briscola.py" in text.splitlines()[0]


def test_every_game_module_cites_its_page() -> None:
    """Each built-in game module's docstring ends its first paragraph with its page."""
    for module_name in BUILTIN_MODULES:
        page = f"docs/games/{module_name.rsplit('.', 1)[1]}.md"
        first = module_docstring(module_name).split("\n\n")[0]
        assert " ".join(first.split()).endswith(f" ({page}).")
        assert (ROOT / page).exists()
        module = importlib.import_module(module_name)
        # a compiled engine's module keeps no docstring: the pages read the source's
        assert module.__doc__ is None or inspect.cleandoc(module.__doc__) == \
            module_docstring(module_name)


def test_a_docstring_without_its_page_is_refused() -> None:
    """A module whose first paragraph does not cite its page makes no page."""
    name = "arena.games.nothing"
    with pytest.raises(PageError, match=r"arena\.games\.nothing: .*'\(docs/games/nothing.md\)"):
        split_docstring(name, "Nothing (RULES.md 9.9).\n\nRules summary:\n")
    assert split_docstring(name, "Nothing at all\n(docs/games/nothing.md).\n\nRules summary: "
                           "none.") == ("Nothing at all", "Rules summary: none.")


def test_no_project_file_cites_a_rules_file_it_does_not_ship() -> None:
    """The game modules and ``arena games`` cite the pages, never RULES.md."""
    for path in [*(ROOT / "arena" / "games").glob("*.py"), ROOT / "arena" / "cli" / "games.py"]:
        assert "RULES.md" not in path.read_text(encoding="utf-8"), path


def test_arena_games_prints_each_game_page() -> None:
    """The table shows each built-in game's page; the JSON gives it as ``page``."""
    runner = CliRunner()
    table = runner.invoke(app, ["games"], env={"COLUMNS": "200"})
    assert table.exit_code == 0
    listed = json.loads(runner.invoke(app, ["games", "--json"]).stdout)
    for game in listed:
        spec = get_spec(game["id"])
        assert game["page"] == page_of(spec)
        if spec.origin == "arena":
            assert re.fullmatch(r"docs/games/\w+\.md", game["page"])
            assert (ROOT / game["page"]).exists()
            assert game["page"] in table.stdout
    assert get_spec("briscola-31").id in [game["id"] for game in listed]
    assert page_of(get_spec("briscola-31")) == "docs/games/briscola.md"


def test_rules_md_links_every_game_page() -> None:
    """docs/rules.md has a row per built-in game id linking its page and section."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for game_id in game_ids():
        spec = get_spec(game_id)
        page = page_of(spec)
        if page is None:
            continue
        name = page.removeprefix("docs/")
        row = next((line for line in text.splitlines() if line.startswith(f"| `{game_id}` |")),
                   None)
        assert row is not None, game_id
        assert f"({name})" in row or f"({name}#{game_id})" in row, row
    assert "RULES.md" not in text
