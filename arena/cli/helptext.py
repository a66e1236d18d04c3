"""Help pages that read as prose: paragraphs reflowed, plain value names instead of Python
types (no ``<bool>`` beside a flag), and examples under the main commands.

``tidy`` walks the command tree once, before a command runs; the examples are listed here by
command path, and a test runs each through the parser.
"""

from __future__ import annotations

from collections.abc import Mapping

import typer
from rich.markup import escape
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

TIDIED = "_arena_tidied"
"""The attribute that marks a command already tidied."""

EXAMPLES: Mapping[str, tuple[str, ...]] = {
    "games": ("arena games", "arena games --json"),
    "play": (
        "arena play briscola",
        "arena play briscola --players 4 --seed 3 --policy heuristic --policy random",
        "arena play scopa --param target=21 --save match.json",
        "arena play briscola --bot sample_bots/python/random --policy heuristic",
        "arena play briscola --bot ./mybot --duplicate --save set.json",
    ),
    "replay": ("arena replay match.json", "arena replay set.json --deal 2 --html deal2.html"),
    "bot new": ("arena bot new mybot", "arena bot new gobot --lang go"),
    "bot check": ("arena bot check ./mybot", "arena bot check ./mybot --game briscola",
                  "arena bot check image:cardarena-bot/random:1.0.0"),
    "bot build": ("arena bot build sample_bots/python/random",),
    "images build-base": ("arena images build-base",
                          "arena images build-base --variant openspiel"),
    "league create": (
        "arena league create demo --bot sample_bots/python/heuristic --bot random",
        "arena league create friday --bot ./mybot --bot heuristic --games briscola,scopa "
        "--deals 4",
    ),
    "league run": ("arena league run demo", "arena league run demo --workers 4"),
    "league status": ("arena league status demo",),
    "leaderboard": ("arena leaderboard --league demo", "arena leaderboard --game briscola"),
    "report": ("arena report demo",),
    "compare": ("arena compare ./mybot heuristic --game briscola",),
    "worker": ("arena worker --broker redis://HOST:6379/0 --db postgresql://USER@HOST/DB",),
    "serve": ("arena serve",),
    "remote submit": ("arena remote submit sample_bots/python/random --name random",),
    "remote league create": (
        "arena remote league create friday --bot mybot --bot heuristic --games briscola",),
}
"""Example command lines of the main commands, by command path."""

TYPE_NAMES = {"int": "INTEGER", "int range": "INTEGER", "float": "NUMBER",
              "float range": "NUMBER", "str": "TEXT", "path": "PATH", "file": "FILE",
              "directory": "PATH"}
"""The value name shown for an option without a metavar, by the type typer shows."""


def reflow(text: str | None) -> str | None:
    """Help text with the line breaks inside each paragraph turned into spaces."""
    if not text:
        return text
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in text.split("\n\n"))


def examples_epilog(path: str) -> str | None:
    """The examples of a command, as its help's last section."""
    lines = EXAMPLES.get(path)
    if not lines:
        return None
    # The first line is empty so that the help's dedent keeps the indent of the examples.
    return "\n[bold]Examples:[/bold]\n" + "\n".join(f"  {escape(line)}" for line in lines)


def value_name(param: TyperOption | TyperArgument, ctx: typer.Context) -> str | None:
    """What an option's value is called in its help row: nothing for a flag, or for an
    argument (its name says it)."""
    if isinstance(param, TyperArgument) or param.is_flag or param.count:
        return None
    if param.metavar:
        return param.metavar
    label = param.display_type(ctx).strip("<>")
    label = label.removeprefix("list[").removesuffix("]")
    if "|" in label:
        return label
    return TYPE_NAMES.get(label, label.upper())


def _tidy_param(param: TyperOption | TyperArgument) -> None:
    """Give a parameter its value name, and an argument its bare name in the usage line."""
    param.display_type_rich = lambda ctx: value_name(param, ctx)  # type: ignore[method-assign]
    if isinstance(param, TyperArgument):
        bare = param.display_name_raw
        usage = bare if param.required else f"[{bare}]"
        param._usage_display_name = lambda: usage  # type: ignore[method-assign]


def _tidy_help_option(command: TyperCommand | TyperGroup) -> None:
    """Tidy the ``--help`` option too, which the command makes when it is first asked for."""
    original = command.get_help_option

    def help_option(ctx: typer.Context) -> TyperOption | None:
        """The help option, tidied."""
        option = original(ctx)
        if option is not None:
            _tidy_param(option)
        return option

    command.get_help_option = help_option  # type: ignore[method-assign]


def tidy(command: TyperCommand | TyperGroup, path: str = "") -> None:
    """Reflow the help of a command and of every command under it, name their values, and
    add their examples (once per command object)."""
    if getattr(command, TIDIED, False):
        return
    setattr(command, TIDIED, True)
    command.help = reflow(command.help)
    command.short_help = reflow(command.short_help)
    epilog = examples_epilog(path)
    if epilog is not None:
        command.epilog = epilog
    for param in command.params:
        _tidy_param(param)
        param.help = reflow(param.help)
    _tidy_help_option(command)
    if isinstance(command, TyperGroup):
        for name, sub in command.commands.items():
            tidy(sub, f"{path} {name}".strip())
