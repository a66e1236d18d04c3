"""``arena images ...``: Docker images for bots, the offline base image."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.building import show_builds
from arena.games.params import did_you_mean
from arena.sandbox.buildwatch import building
from arena.sandbox.engine import docker_client

images_app = typer.Typer(
    help="Docker images for bots: the offline base images.",
    no_args_is_help=True,
)


@images_app.command("build-base")
def images_build_base(
    variant: Annotated[str, typer.Option(
        "--variant", metavar="NAME",
        help="The base image: python (cardarena/python-base) or openspiel "
             "(cardarena/python-openspiel: the Python base with open_spiel and numpy).")
    ] = "python",
    rebuild: Annotated[bool, typer.Option(
        "--rebuild", help="Make the Debian root again (debootstrap) instead of reusing it.")
    ] = False,
) -> None:
    """Build a base image of Python bots offline, from Debian packages and host wheels.

    The image holds Python with card-arena-engine, cardarena-sdk and their dependencies (not
    the platform); nothing is pulled from a registry. The Debian root is made once and reused;
    the Python layer is built again (quickly, from Docker's cache, when nothing changed). A
    variant other than python is built on the Python base (made first when missing), adding
    its wheels to the same venv; a bot asks for it with `base = "NAME"` in bot.toml.
    """
    from arena.sandbox.bases import VARIANTS
    from arena.sandbox.images import build_base

    if variant not in VARIANTS:
        raise typer.BadParameter(f"unknown base image {variant!r}"
                                 f"{did_you_mean(variant, VARIANTS)}; known: "
                                 f"{', '.join(VARIANTS)}", param_hint="'--variant'")
    docker_client()  # no Docker: one error line, before any build is shown
    with show_builds(), building(f"the {variant} base image") as show:
        image_id = build_base(variant=variant, rebuild=rebuild, progress=show)
    typer.echo(f"built {VARIANTS[variant].tag} {image_id}")
