"""The options that several commands share are one declaration: the same help, limits and
default in ``arena play``, ``arena compare``, ``arena league create`` and ``arena remote league
create``."""

from __future__ import annotations

from typing import Any

import pytest
import typer.main

from arena.cli import app

CLOCK = ["--decision-ms", "--bank-ms", "--startup-ms", "--strikes"]

COMMANDS = {
    ("play",): CLOCK,
    ("compare",): [*CLOCK, "--forfeit-policy"],
    ("league", "create"): [*CLOCK, "--forfeit-policy"],
    ("remote", "league", "create"): ["--forfeit-policy"],
}


def command(path: tuple[str, ...]) -> Any:
    """The command at ``path`` of the ``arena`` program, as typer builds it."""
    found: Any = typer.main.get_command(app)
    for name in path:
        found = found.commands[name]
    return found


def option(path: tuple[str, ...], name: str) -> Any:
    """The option ``name`` of the command at ``path``."""
    matches = [param for param in command(path).params
               if param.param_type_name == "option" and name in param.opts]
    assert len(matches) == 1, (path, name)
    return matches[0]


def described(param: Any) -> tuple[object, ...]:
    """What a user sees of an option: its help, metavar, limits and default."""
    return (param.help, param.metavar, getattr(param, "min", None), getattr(param, "max", None),
            param.default)


@pytest.mark.parametrize("name", [*CLOCK, "--forfeit-policy"])
def test_each_shared_option_reads_the_same_everywhere(name: str) -> None:
    """Every command that takes the option describes it alike, with its help given."""
    seen = {path: described(option(path, name)) for path, names in COMMANDS.items()
            if name in names}
    assert len(seen) >= 2
    assert len(set(seen.values())) == 1, seen
    assert next(iter(seen.values()))[0]
