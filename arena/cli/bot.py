"""``arena bot ...``: a new bot folder from a template, a conformance check, a Docker image."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from arena.agents.sources import IMAGE_PREFIX, PROCESS, check_sandbox
from arena.botkit import LANGUAGES, ScaffoldError, check_bot, missing_toolchain, scaffold_bot
from arena.cli.building import show_builds
from arena.cli.errors import SEAT_FAULT, CliError
from arena.cli.options import ALLOW_UNENFORCED_OPTION, SANDBOX_OPTION, seed_option
from arena.cli.seats import parse_allowed
from arena.match.safetext import dumps
from arena.match.timecontrol import (
    DEFAULT_BANK_MS,
    DEFAULT_DECISION_MS,
    DEFAULT_STARTUP_MS,
    TimeControl,
)

bot_app = typer.Typer(
    help="Write bots: a new bot folder from a template, a conformance check, a Docker image.",
    no_args_is_help=True,
)


@bot_app.command("new")
def bot_new(
    name: Annotated[str, typer.Argument(metavar="NAME",
                                        help="The bot's name, also its folder's name.")],
    lang: Annotated[str, typer.Option(
        "--lang", metavar="LANGUAGE", help=f"The bot's language ({', '.join(LANGUAGES)}).")
    ] = "python",
    directory: Annotated[Path | None, typer.Option(
        "--dir", metavar="PATH", file_okay=False,
        help="Where to create the folder NAME (default: the current folder).")] = None,
) -> None:
    """Create a bot folder NAME/ that plays every game with legal moves.

    It holds bot.toml, the bot's sources, a Dockerfile and a README (a compiled language adds
    build.sh and a copy of agent.proto); an existing non-empty folder is never overwritten.
    """
    try:
        folder = scaffold_bot(name, lang, directory)
    except ScaffoldError as error:
        raise CliError(str(error)) from None
    files = ", ".join(sorted(item.name for item in folder.iterdir()))
    typer.echo(f"created {folder}: {files}")
    for warning in missing_toolchain(lang):
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(f"next: arena bot check {folder}")


@bot_app.command("check")
def bot_check(
    path: Annotated[str, typer.Argument(
        metavar="PATH|image:NAME",
        help="A bot folder (with bot.toml), or image:NAME, a bot image run in a container.")],
    game: Annotated[list[str] | None, typer.Option(
        "--game", metavar="ID",
        help="Check this game only; repeat for more (default: every game the bot claims).")
    ] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the checks as JSON instead.")] = False,
    decision_ms: Annotated[int, typer.Option(
        "--decision-ms", min=1, help="Time for each decision, in milliseconds.")
    ] = DEFAULT_DECISION_MS,
    bank_ms: Annotated[int, typer.Option(
        "--bank-ms", min=0, help="Time bank per deal, in milliseconds.")] = DEFAULT_BANK_MS,
    startup_ms: Annotated[int, typer.Option(
        "--startup-ms", min=1, help="Time the bot may take to start listening, in milliseconds.")
    ] = DEFAULT_STARTUP_MS,
    seed: Annotated[int, seed_option(
        "--seed", "-s",
        help="The seed the checked deals derive from (each game's deal has one of its own).")
    ] = 1,
    sandbox: Annotated[str, SANDBOX_OPTION] = PROCESS,
    allow_unenforced: Annotated[list[str] | None, ALLOW_UNENFORCED_OPTION] = None,
) -> None:
    """Check a bot: start-up, handshake, legal play, deadlines, clean shutdown.

    One deal of every game the bot claims (or each --game), the bot at seat 0 and the random
    policy elsewhere. One line per check; exit code 0 when all pass, 1 otherwise. A Docker bot
    (image:NAME, or a folder with --sandbox docker) runs in a hardened container; a folder is
    built into its image first.
    """
    check_sandbox(sandbox)
    if not path.startswith(IMAGE_PREFIX) and not Path(path).exists():
        raise CliError(f"bot {path}: no such file or directory")
    allowed = parse_allowed(allow_unenforced or [])
    control = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms, startup_ms=startup_ms)
    emit = None if as_json else (lambda line: typer.echo(line.text()))
    with show_builds():
        report = check_bot(path, game or [], control, seed, emit=emit, sandbox=sandbox,
                           allow_unenforced=allowed)
    if as_json:
        typer.echo(dumps(report.to_dict(), indent=2))
    else:
        typer.echo(report.summary())
    if not report.passed:
        raise typer.Exit(SEAT_FAULT)


@bot_app.command("build")
def bot_build(
    path: Annotated[Path, typer.Argument(
        metavar="PATH", help="A bot folder with bot.toml and a Dockerfile.")],
    base: Annotated[str | None, typer.Option(
        "--base", metavar="IMAGE",
        help="The base image (the Dockerfile's ARG BASE; default: the base bot.toml names, "
             "the offline Python base unless it says base = \"openspiel\").")
    ] = None,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="S", min=1, help="Stop a build that runs longer, in seconds.")
    ] = None,
    push: Annotated[str | None, typer.Option(
        "--push", metavar="REGISTRY",
        help="Push the image to this registry (HOST, HOST:PORT or HOST:PORT/PATH) and print "
             "it pinned by digest, REGISTRY/cardarena-bot/NAME@sha256:...")] = None,
) -> None:
    """Build a bot folder's Docker image, tagged cardarena-bot/NAME:VERSION, and print it.

    The build has no network and is cached; a build that fails, runs too long or grows too
    large prints one error line and the end of the build log (exit code 1). With --push the
    image goes to a registry and the line printed last is its pinned reference, which leagues
    and workers on any host use (docs/registry.md).
    """
    from arena.sandbox.images import build_bot_image
    from arena.sandbox.registry import check_registry, push_image

    registry = check_registry(push) if push is not None else None

    options: dict[str, Any] = {}
    if base is not None:
        options["base"] = base
    if timeout is not None:
        options["timeout_s"] = timeout
    with show_builds():
        image = build_bot_image(path, **options)
    typer.echo(f"built {image.ref} {image.image_id}")
    if registry is not None:
        image = push_image(image, registry, progress=lambda line: typer.echo(line, err=True))
        typer.echo(f"pushed {image.pinned}")
    typer.echo(f"next: arena bot check {IMAGE_PREFIX}{image.pinned or image.ref}")
