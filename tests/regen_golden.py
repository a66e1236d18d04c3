"""Rewrite the golden transcripts of every configuration: ``python tests/regen_golden.py``.

``--check`` only reports which files are missing, differ or are stale, and exits 1 if any.
"""

from __future__ import annotations

import typer
from conformance.golden import GOLDEN_DIR, golden_path, stale_files, transcript
from conformance.harness import CONFIGS

app = typer.Typer(add_completion=False)


@app.command()
def main(check: bool = typer.Option(False, "--check", help="Report differences; write nothing.")
         ) -> None:
    """Regenerate every transcript in tests/golden and remove the stale ones."""
    changed = []
    for config in CONFIGS:
        path = golden_path(config)
        text = transcript(config)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        changed.append(path.name)
        if not check:
            GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    stale = stale_files()
    if not check:
        for path in stale:
            path.unlink()
    verb = "differ or are missing" if check else "written"
    typer.echo(f"{len(CONFIGS)} configurations; {len(changed)} {verb}: {', '.join(changed) or '-'}")
    typer.echo(f"{len(stale)} stale: {', '.join(p.name for p in stale) or '-'}"
               + ("" if check else " (removed)"))
    if check and (changed or stale):
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
