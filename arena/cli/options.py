"""Command-line options that several commands share, each declared once (type, name, help).

``arena play``, ``arena compare`` and ``arena league create`` take the clock, the strikes and
the forfeit policy with these declarations, and ``arena remote league create`` the forfeit
policy; ``arena play``, ``arena bot check`` and ``arena bench sandbox`` the sandbox options;
every command with a ``--seed`` checks it with ``seed_option``.
A command gives the default in its signature, the constant beside the value's code
(``DEFAULT_DECISION_MS`` and the others of ``arena.match.timecontrol``, ``DEFAULT_STRIKES``,
``DEFAULT_POLICY.value``).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from arena.games.rng import MAX_SEED

DecisionMsOption = Annotated[int, typer.Option(
    "--decision-ms", min=1, help="Time for each decision, in milliseconds.")]
"""``--decision-ms``: the time for each decision (default ``DEFAULT_DECISION_MS``)."""

BankMsOption = Annotated[int, typer.Option(
    "--bank-ms", min=0, help="Time bank per seat and deal, in milliseconds.")]
"""``--bank-ms``: the time bank per seat and deal (default ``DEFAULT_BANK_MS``)."""

StartupMsOption = Annotated[int, typer.Option(
    "--startup-ms", min=1, help="Time a bot may take to start listening, in milliseconds.")]
"""``--startup-ms``: the time a bot may take to start (default ``DEFAULT_STARTUP_MS``)."""

StrikesOption = Annotated[int, typer.Option(
    "--strikes", min=1, help="Faults that forfeit a seat.")]
"""``--strikes``: the faults that forfeit a seat (default ``DEFAULT_STRIKES``)."""

ForfeitPolicyOption = Annotated[str, typer.Option(
    "--forfeit-policy", metavar="loss|stand",
    help="How a forfeited deal scores: loss (the seat's return is the worst the game allows, "
         "and in a league it ranks below every seat that did not forfeit) or stand (the "
         "returns of the deal as the random substitute finished it stand).")]
"""``--forfeit-policy``: loss or stand (default ``DEFAULT_POLICY.value``)."""

SANDBOX_OPTION = typer.Option(
    "--sandbox", metavar="KIND",
    help="How bot folders run: process (a local process) or docker (built into an image, "
         "run in a hardened container).")
"""``--sandbox``: process or docker (default ``PROCESS`` of ``arena.agents.sources``)."""

ALLOW_UNENFORCED_OPTION = typer.Option(
    "--allow-unenforced", metavar="LIMIT[,LIMIT]",
    help="Run Docker bots even though the engine does not enforce these limits (trusted bots "
         "only); repeatable.")
"""``--allow-unenforced``: limit names, read by ``arena.cli.seats.parse_allowed``."""


def check_seed(value: int | None) -> int | None:
    """``value`` when it is a seed (0 to ``MAX_SEED``); bad input naming the bounds if not."""
    if value is not None and not 0 <= value <= MAX_SEED:
        raise typer.BadParameter(f"{value} is not a seed: a seed is an integer from 0 to "
                                 f"2**64 - 1 ({MAX_SEED})")
    return value


def seed_option(*names: str, help: str) -> Any:
    """A ``--seed`` option with ``help``: an integer checked by ``check_seed``, its range left
    out of the help (it would be a twenty-digit number beside every command's seed)."""
    return typer.Option(*(names or ("--seed",)), callback=check_seed, help=help)
