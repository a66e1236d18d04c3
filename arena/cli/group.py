"""The ``arena`` command group: bad input as one ``error:`` line and exit code 2."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

from arena.bots import BotConfigError
from arena.cli.errors import USAGE_ERROR, error_line, report_sandbox_error
from arena.cli.helptext import tidy
from arena.games import GameError
from arena.match import MatchError
from arena.match.safetext import safe_logging, safe_text
from arena.sandbox.errors import SandboxError


class ArenaGroup(TyperGroup):
    """The command group, reporting bad input as one ``error:`` line and exit code 2."""

    order: tuple[str, ...] = ()
    """The commands in the order ``--help`` lists them (any other after them)."""

    def list_commands(self, ctx: Any) -> list[str]:
        """The command names, in ``order`` first."""
        names = super().list_commands(ctx)
        rank = {name: index for index, name in enumerate(self.order)}
        return sorted(names, key=lambda name: rank.get(name, len(rank)))

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        """Run a command; turn usage, engine and record errors into one line on stderr (and
        an unexpected error into its traceback, made safe to print)."""
        safe_logging()
        tidy(self)
        try:
            result = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                  **extra)
            code = result if isinstance(result, int) else 0
        except typer.TyperException as error:
            message = error.format_message()
            # A bare group raises NoArgsIsHelpError after rich has already shown its help.
            if type(error).__name__ != "NoArgsIsHelpError":
                typer.echo(error_line(message), err=True)
            elif message.strip():
                typer.echo(message)
            code = USAGE_ERROR
        except (GameError, MatchError, BotConfigError) as error:
            typer.echo(error_line(str(error)), err=True)
            code = USAGE_ERROR
        except SandboxError as error:
            code = report_sandbox_error(error)
        except typer.Abort:
            typer.echo(error_line("aborted"), err=True)
            code = 1
        except Exception:  # a fault of the arena: its traceback, what it quotes escaped
            typer.echo(safe_text(traceback.format_exc(), multiline=True), err=True, nl=False)
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code
