"""The Docker engine: one client per process, or one clear line saying why there is none."""

from __future__ import annotations

import functools
from typing import Any

from arena.sandbox.errors import DockerUnavailable, UnknownRuntime

INSTALL_HINT = "pip install 'card-arena[docker]'"


@functools.cache
def docker_client() -> Any:
    """A connected ``docker.DockerClient``, or raise ``DockerUnavailable`` naming the reason."""
    try:
        import docker
        from docker.errors import DockerException
    except ImportError:
        raise DockerUnavailable(f"Docker bots need the docker package: {INSTALL_HINT}") from None
    try:
        client = docker.from_env(timeout=120)
        client.ping()
    except DockerException as error:
        raise DockerUnavailable(f"Docker is not available on this machine: "
                                f"{_first_line(error)}") from None
    return client


def _first_line(error: BaseException) -> str:
    """The first line of an error's message."""
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


@functools.cache
def engine_runtimes() -> tuple[str, ...]:
    """The runtimes the Docker engine has (``docker info``), sorted."""
    return tuple(sorted(docker_client().info().get("Runtimes", {}) or {}))


def check_runtime(name: str) -> None:
    """Raise ``UnknownRuntime`` naming the engine's runtimes when it has no runtime ``name``."""
    runtimes = engine_runtimes()
    if name not in runtimes:
        raise UnknownRuntime(f"the Docker engine has no runtime {name!r} (it has "
                             f"{', '.join(runtimes) or 'none'}); a runtime is registered in "
                             "the engine's daemon.json, under \"runtimes\"")
