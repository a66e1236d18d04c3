"""Tools for bot authors: ``arena bot check`` (conformance) and ``arena bot new`` (scaffolds)."""

from arena.botkit.check import check_bot
from arena.botkit.report import CheckLine, CheckReport
from arena.botkit.scaffold import LANGUAGES, ScaffoldError, missing_toolchain, scaffold_bot

__all__ = ["LANGUAGES", "CheckLine", "CheckReport", "ScaffoldError", "check_bot",
           "missing_toolchain", "scaffold_bot"]
