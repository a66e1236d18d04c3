"""``arena images ...``: Docker images for bots, the offline base image."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.match.safetext import safe_text

images_app = typer.Typer(
    help="Docker images for bots: the offline base image.",
    no_args_is_help=True,
)


@images_app.command("build-base")
def images_build_base(
    rebuild: Annotated[bool, typer.Option(
        "--rebuild", help="Make the Debian root again (debootstrap) instead of reusing it.")
    ] = False,
) -> None:
    """Build the base image of Python bots offline, from Debian packages and host wheels.

    The image holds Python with card-arena-engine, cardarena-sdk and their dependencies (not
    the platform); nothing is pulled from a registry. The Debian root is made once and reused;
    the Python layer is built again (quickly, from Docker's cache, when nothing changed).
    """
    from arena.sandbox.images import BASE_IMAGE, build_base

    image_id = build_base(rebuild=rebuild,
                          progress=lambda line: typer.echo(safe_text(line), err=True))
    typer.echo(f"built {BASE_IMAGE} {image_id}")
