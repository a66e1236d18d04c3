"""Rewrite the golden transcripts of every configuration: ``python tests/regen_golden.py``.

``--check`` only reports which files are missing, differ or are stale, and exits 1 if any;
``--game ID`` (repeatable) limits the work to those game ids and leaves other files alone.
"""

from __future__ import annotations

from typing import Annotated

import typer
from conformance.golden import golden_path, stale_files, transcript
from conformance.harness import CONFIGS

from arena.games.testing import write_transcript

app = typer.Typer(add_completion=False)


@app.command()
def main(
    check: Annotated[bool, typer.Option("--check", help="Report differences; write nothing.")]
    = False,
    games: Annotated[list[str] | None, typer.Option("--game", help="Only these game ids.")]
    = None,
) -> None:
    """Regenerate every transcript in tests/golden and remove the stale ones."""
    configs = [config for config in CONFIGS if not games or config[0] in games]
    changed = []
    for config in configs:
        path = golden_path(config)
        text = transcript(config)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        changed.append(path.name)
        if not check:
            write_transcript(path, text)
    stale = [] if games else stale_files()
    if not check:
        for path in stale:
            path.unlink()
    verb = "differ or are missing" if check else "written"
    typer.echo(f"{len(configs)} configurations; {len(changed)} {verb}: {', '.join(changed) or '-'}")
    typer.echo(f"{len(stale)} stale: {', '.join(p.name for p in stale) or '-'}"
               + ("" if check else " (removed)"))
    if check and (changed or stale):
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
