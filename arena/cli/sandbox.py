"""``arena sandbox ...``: check the sandbox's promises on this machine, clean up what a stopped
arena left behind."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer

from arena.cli.errors import SEAT_FAULT, error_line
from arena.match.safetext import dumps, safe_text

sandbox_app = typer.Typer(
    help="The Docker sandbox of untrusted bots: check its promises on this machine, clean up "
         "what a stopped arena left behind.",
    no_args_is_help=True,
)


@sandbox_app.command("gc")
def sandbox_gc(
    everything: Annotated[bool, typer.Option(
        "--all", help="Remove every sandbox container, even those of running arenas.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print what was removed as JSON.")
                       ] = False,
) -> None:
    """Remove the containers and socket folders that stopped arenas left behind.

    Found by their label; a container belongs to a stopped arena when the arena process that
    started it on this host is gone. --all removes every one.
    """
    from arena.sandbox.engine import docker_client
    from arena.sandbox.gc import collect

    docker_client()
    report = collect(everything=everything)
    if as_json:
        typer.echo(dumps(report.to_dict(), indent=2))
    else:
        for line in gc_lines(report.removed, report.socket_dirs, report.kept):
            typer.echo(safe_text(line))
    for error in report.errors:
        typer.echo(error_line(f"cannot remove {error}"), err=True)
    if report.errors:
        raise typer.Exit(SEAT_FAULT)


@sandbox_app.command("audit")
def sandbox_audit(
    as_json: Annotated[bool, typer.Option("--json", help="Print the promises as JSON.")
                       ] = False,
) -> None:
    """Check the sandbox's security promises against this machine's Docker engine.

    One probe container reads back every limit of a bot's container; hostile bots shipped
    with card-arena then try to store data on the host through their socket folder and to
    flood the arena (unasked messages, oversized metadata and status texts, a compression
    bomb, output). Prints one line per promise (PASS or FAIL, and what was measured); exits
    with 1 when one fails.
    """
    from arena.audit import run_audit
    from arena.match.safetext import dumps as safe_dumps
    from arena.sandbox.engine import docker_client

    docker_client()
    show = None if as_json else (lambda promise: typer.echo(promise.line()))
    promises = run_audit(report=show)
    passed = all(promise.passed for promise in promises)
    if as_json:
        typer.echo(safe_dumps({"passed": passed,
                               "promises": [promise.to_dict() for promise in promises]},
                              indent=2))
    if not passed:
        raise typer.Exit(SEAT_FAULT)


def gc_lines(removed: Sequence[str], socket_dirs: Sequence[str],
             kept: Sequence[str]) -> list[str]:
    """What ``arena sandbox gc`` did, in a few lines."""

    def count(items: Sequence[str], what: str) -> str:
        """``1 container`` or ``3 containers``."""
        return f"{len(items)} {what}{'' if len(items) == 1 else 's'}"

    lines = [f"removed {count(removed, 'container')}"
             + (f": {', '.join(removed)}" if removed else ""),
             f"removed {count(socket_dirs, 'socket folder')}"]
    if kept:
        lines.append(f"kept {count(kept, 'container')} of running arenas or other hosts "
                     f"(--all removes them too): {', '.join(kept)}")
    return lines
