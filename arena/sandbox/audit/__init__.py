"""Hostile bots shipped with the package, for ``arena sandbox audit`` and the tests.

Each module here is a script that a bot container runs with the base image's Python
(``python -c SOURCE MODE``), so the audit needs no source tree and no image of its own. The
scripts import only grpcio, the protocol's messages and ``arena.protocol.rawserver`` (the raw
gRPC server they share): all from the engine, which the base image holds; the arena never
imports them.
"""

from __future__ import annotations

from importlib import resources

SCRIPTS = ("flood", "socket_abuse")
"""The hostile scripts, by module name."""


def script(name: str) -> str:
    """The source of a hostile script."""
    if name not in SCRIPTS:
        raise ValueError(f"no hostile script {name!r}; known: {', '.join(SCRIPTS)}")
    return resources.files(__name__).joinpath(f"{name}.py").read_text(encoding="utf-8")


def command(name: str, *args: str) -> tuple[str, ...]:
    """The container command that runs a hostile script with its arguments."""
    return ("python", "-c", script(name), *args)
