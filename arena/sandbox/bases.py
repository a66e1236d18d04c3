"""The base images bots build on: the Python base and its variants with extra packages.

A bot folder names its base in ``bot.toml`` (``base = "openspiel"``; default ``python``). Each
variant but ``python`` is built on the Python base, adding pinned binary wheels to its venv;
``arena images build-base --variant NAME`` builds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.sandbox.errors import BuildError


@dataclass(frozen=True)
class BaseVariant:
    """A base image: its name in ``bot.toml``, its tag and the wheels it adds to the Python base."""

    name: str
    tag: str
    requirements: tuple[str, ...] = ()

    @property
    def build_command(self) -> str:
        """The command that builds this image."""
        command = "arena images build-base"
        return command if self.name == PYTHON.name else f"{command} --variant {self.name}"


PYTHON = BaseVariant("python", "cardarena/python-base:latest")
OPENSPIEL = BaseVariant("openspiel", "cardarena/python-openspiel:latest",
                        ("open_spiel==2.0.2", "numpy==2.4.6"))

VARIANTS = {variant.name: variant for variant in (PYTHON, OPENSPIEL)}
"""Every base image by name, the default first (the names ``bot.toml`` accepts)."""


def base_variant(name: str) -> BaseVariant:
    """The base image of this name, or raise ``BuildError`` listing the known ones."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise BuildError(f"unknown base image variant {name!r}; known: "
                         f"{', '.join(VARIANTS)}") from None


def variant_of_tag(tag: str) -> BaseVariant:
    """The base image tagged ``tag`` (the Python base for any other tag)."""
    return next((variant for variant in VARIANTS.values() if variant.tag == tag), PYTHON)
