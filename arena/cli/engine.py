"""``arena engine ...``: build the compiled rules engine and tell which engine runs."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from arena.match.safetext import safe_text

engine_app = typer.Typer(help="The rules engine: compiled with mypyc, or from source.",
                         no_args_is_help=True)


@engine_app.command("build")
def build_command(
    force: Annotated[bool, typer.Option("--force", help="Build again even if built.")] = False,
) -> None:
    """Compile the game modules with mypyc (about two minutes); later imports use them."""
    import arena.games
    import arena.protocol
    from arena.engine_build import EngineBuildError, build_engine

    compiled = {"games": arena.games.COMPILED_MODULES,
                "protocol": arena.protocol.COMPILED_MODULES}
    console = Console(stderr=True)
    try:
        with console.status("building the compiled engine") as status:
            result = build_engine(compiled, force,
                                  lambda text: status.update(Text(safe_text(text))))
    except EngineBuildError as error:
        console.print(Text("error: ", style="red").append(safe_text(error)), highlight=False,
                      soft_wrap=True)
        raise typer.Exit(code=1) from None
    what = f"built in {result.seconds:.0f} s" if result.built else "already built"
    console.print(f"compiled engine {what}: {result.folder}", highlight=False, soft_wrap=True)


@engine_app.command("status")
def status_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Which engine runs (compiled or python), and the protocol encoder with it; the sources'
    hash and the build folder."""
    from arena.compiled import build_folder, engine_choice, is_complete, source_hash
    from arena.games import ENGINE
    from arena.protocol import PROTOCOL_ENGINE

    folder = build_folder()
    status = {"engine": ENGINE, "protocol": PROTOCOL_ENGINE, "choice": engine_choice(),
              "source_hash": source_hash(), "built": is_complete(folder), "folder": str(folder)}
    if as_json:
        print(json.dumps(status))
        return
    built = "built" if status["built"] else "not built (arena engine build)"
    print(f"engine: {ENGINE} (ARENA_ENGINE={status['choice']}), protocol encoder: "
          f"{PROTOCOL_ENGINE}; build of these sources: {built}, {folder}")


@engine_app.command("clean")
def clean_command(
    everything: Annotated[bool, typer.Option(
        "--all", help="Remove the build of the current sources too.")] = False,
) -> None:
    """Remove the builds of other versions of the sources from the cache."""
    from arena.engine_build import clean_cache

    removed = clean_cache(keep_current=not everything)
    print(f"removed {len(removed)} build(s)")
