"""The rules pages ``docs/games/<module>.md``, generated from the built-in game modules.

One page per game module of ``arena.games.registry.BUILTIN_MODULES``: its title and rules
summary are the module's docstring (whose first paragraph cites the page), followed by each of
its game ids with the title, seat counts and every parameter's default and valid values, read
from the module's ``SPECS``. ``python -m arena.cli.game_pages`` writes the pages;
``--check`` writes nothing and exits 1 naming every page that is missing, stale or left over.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from arena.compiled import package_dir
from arena.games import GameSpec, Param, get_spec
from arena.games.registry import BUILTIN_MODULES

PAGES_DIR = "docs/games"
"""Where the pages are, from the repository root."""

REPO = Path(__file__).resolve().parents[2]
"""The repository root of a source checkout."""

COMMAND = "python -m arena.cli.game_pages"
"""The command that writes the pages, named in each page's first line."""


class PageError(ValueError):
    """A game module whose docstring cannot make its page; the message names the problem."""


def page_name(module_name: str) -> str:
    """The page of a game module: ``arena.games.briscola`` -> ``briscola.md``."""
    return f"{module_name.rsplit('.', 1)[-1]}.md"


def page_path(module_name: str) -> str:
    """A module's page from the repository root: ``docs/games/briscola.md``."""
    return f"{PAGES_DIR}/{page_name(module_name)}"


def page_of(spec: GameSpec) -> str | None:
    """The page of a game id (``docs/games/<module>.md``); None for a plugin's game."""
    if spec.origin != "arena":
        return None
    for module_name in BUILTIN_MODULES:
        if any(known.id == spec.id for known in importlib.import_module(module_name).SPECS):
            return page_path(module_name)
    return None


def module_docstring(module_name: str) -> str:
    """A built-in game module's docstring, read from its source (a compiled engine's modules
    keep none)."""
    source = package_dir("games") / f"{module_name.rsplit('.', 1)[-1]}.py"
    return ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""


def split_docstring(module_name: str, doc: str) -> tuple[str, str]:
    """A module's title (its docstring's first paragraph without the page it cites) and the
    rest of its docstring; ``PageError`` when the first paragraph does not end citing the
    page."""
    first, _, rest = doc.strip().partition("\n\n")
    title = " ".join(first.split())
    citation = f" ({page_path(module_name)})."
    if not title.endswith(citation):
        raise PageError(f"{module_name}: the docstring's first paragraph must end with "
                        f"{citation.strip()!r}")
    return title[: -len(citation)], rest.strip()


def markdown(summary: str) -> str:
    """A docstring's text as Markdown: a blank line before a list or a table that follows a
    paragraph, and after a table, so that every renderer sees them as written."""
    lines: list[str] = []
    for line in summary.splitlines():
        previous = lines[-1] if lines else ""
        table, was_table = line.startswith("|"), previous.startswith("|")
        starts_list = line.startswith("- ") and not previous.startswith((" ", "- "))
        if previous and ((table and not was_table) or (was_table and not table) or starts_list):
            lines.append("")
        lines.append(line)
    return "\n".join(lines)


def value_text(value: object) -> str:
    """A parameter value as typed on the command line (``--param name=value``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def param_row(param: Param) -> str:
    """One parameter as a table row: name, default, valid values, meaning."""
    return (f"| `{param.name}` | `{value_text(param.default)}` | {cell(param.describe())} "
            f"| {cell(param.help)} |")


def seats_text(spec: GameSpec) -> str:
    """The seat counts, the default (what leagues play) first."""
    others = ", ".join(str(seats) for seats in spec.seats[1:])
    return f"{spec.seats[0]} (default){', ' + others if others else ''}"


def game_section(spec: GameSpec) -> list[str]:
    """A game id's section: title, summary, seats and parameters."""
    summary = spec.summary.rstrip()
    if summary and not summary.endswith((".", "!", "?")):
        summary += "."
    lines = [f"## {spec.id}", "", f"**{spec.title}**: {summary}".rstrip(), "",
             f"- Seats: {seats_text(spec)}.",
             f"- Play it: `arena play {spec.id}`; rules version {spec.rules_version}.", ""]
    if not spec.params:
        return [*lines, "No parameters.", ""]
    return [*lines, "| parameter | default | valid values | meaning |", "|---|---|---|---|",
            *(param_row(param) for param in spec.params), ""]


def render_page(module_name: str) -> str:
    """The Markdown page of one built-in game module."""
    module = importlib.import_module(module_name)
    title, summary = split_docstring(module_name, module_docstring(module_name))
    specs = [get_spec(spec.id) for spec in module.SPECS]
    source = f"arena/games/{module_name.rsplit('.', 1)[-1]}.py"
    lines = [f"<!-- Made by `{COMMAND}` from {source}: edit that module, not this page. -->",
             "", f"# {title}", "",
             "Game ids: " + ", ".join(f"[`{spec.id}`](#{spec.id})" for spec in specs) + ". "
             "Parameters are set with `--param name=value` (`arena play`, `arena league "
             "create`); leagues play the defaults. Where the rules come from and the choices "
             "they make: [rules.md](../rules.md).", "", markdown(summary), ""]
    for spec in specs:
        lines += game_section(spec)
    return "\n".join(lines).rstrip() + "\n"


def pages() -> dict[str, str]:
    """Every page by file name."""
    return {page_name(name): render_page(name) for name in BUILTIN_MODULES}


def stale_pages(folder: Path) -> list[str]:
    """The pages of ``folder`` that are missing, differ from what the code gives, or have no
    module any more, each as ``name: why``."""
    expected = pages()
    problems = []
    for name, text in expected.items():
        path = folder / name
        if not path.exists():
            problems.append(f"{name}: missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{name}: stale")
    problems += [f"{path.name}: no game module makes it" for path in sorted(folder.glob("*.md"))
                 if path.name not in expected]
    return problems


def write_pages(folder: Path) -> list[Path]:
    """Write every page into ``folder`` and remove pages no module makes; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    expected = pages()
    for path in folder.glob("*.md"):
        if path.name not in expected:
            path.unlink()
    written = []
    for name, text in expected.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Write the pages, or check them with ``--check``; the exit code."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming each page that is not up to date")
    parser.add_argument("--out", type=Path, default=REPO / PAGES_DIR, metavar="DIR",
                        help=f"the pages' folder (default: {PAGES_DIR} of this checkout)")
    arguments = parser.parse_args(argv)
    try:
        if arguments.check:
            problems = stale_pages(arguments.out)
            for problem in problems:
                print(f"error: {arguments.out / problem} (run `{COMMAND}`)", file=sys.stderr)
            return 1 if problems else 0
        for path in write_pages(arguments.out):
            print(path)
    except PageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
