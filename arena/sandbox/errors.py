"""Errors of the sandbox, each a one-line message naming the problem."""

from __future__ import annotations


class SandboxError(Exception):
    """Something the sandbox cannot do; the message is one line a user can act on."""


class DockerUnavailable(SandboxError):
    """No usable Docker engine here (the package is missing or the daemon does not answer)."""


class UnknownRuntime(SandboxError):
    """A Docker runtime the engine does not have."""


class ImageNotFound(SandboxError):
    """A bot image that does not exist locally."""


class BuildError(SandboxError):
    """A bot or base image that could not be built; ``log`` holds the build log's last lines."""

    def __init__(self, message: str, log: str = "") -> None:
        """Keep the message and the excerpt of the build log."""
        super().__init__(message)
        self.log = log


class LimitsNotEnforced(SandboxError):
    """The Docker engine does not enforce some limit that untrusted bots need."""

    def __init__(self, missing: dict[str, str]) -> None:
        """Name each missing limit with what was seen."""
        self.missing = dict(missing)
        names = ", ".join(f"{name} ({seen})" for name, seen in sorted(self.missing.items()))
        super().__init__(f"the Docker engine does not enforce: {names}; untrusted bots cannot "
                         f"run here (for trusted bots, --allow-unenforced "
                         f"{','.join(sorted(self.missing))} runs them anyway)")
