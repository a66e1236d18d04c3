"""What sits at a seat: a reference policy, a bot folder or a bot image; each makes the agent
that plays."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from arena.agents.base import Agent
from arena.agents.container import DockerAgent
from arena.agents.policy import PolicyAgent
from arena.agents.process import LocalProcessAgent
from arena.bots import BotManifest, ensure_built
from arena.games import Game
from arena.policies import make_policy
from arena.sandbox.limits import SandboxLimits

if TYPE_CHECKING:
    from arena.sandbox.images import BotImage


class SeatSpec(Protocol):
    """Something that can play a seat: checked against the game, then made into an agent."""

    @property
    def label(self) -> str:
        """A short name for displays and the record's ``policies``."""
        ...

    def check(self, game: Game) -> None:
        """Raise a ``ValueError`` subclass naming the problem when it cannot play ``game``."""
        ...

    def create_agent(self) -> Agent:
        """A new agent (one per entrant and rotation of a set, made in rotation order)."""
        ...


@dataclass(frozen=True)
class PolicySeat:
    """A reference policy (``random`` or ``heuristic``), played in this process."""

    policy: str

    @property
    def label(self) -> str:
        """The policy name."""
        return self.policy

    def check(self, game: Game) -> None:
        """Raise ``GameError`` for an unknown policy or a game without that policy."""
        make_policy(self.policy, game, 0, 0)

    def create_agent(self) -> PolicyAgent:
        """A policy agent."""
        return PolicyAgent(self.policy)


@dataclass(frozen=True)
class BotSeat:
    """A bot folder with a ``bot.toml``, run as a local process over gRPC."""

    manifest: BotManifest
    temp_root: Path | None = None
    """Where the bot's private temporary folder goes (default: the system's)."""

    @classmethod
    def from_path(cls, path: str | Path, temp_root: Path | None = None) -> BotSeat:
        """Read the bot's manifest and build it on the host when it says how, or raise
        ``BotConfigError`` naming the problem."""
        manifest = BotManifest.load(path)
        ensure_built(manifest)
        return cls(manifest, temp_root)

    @property
    def label(self) -> str:
        """``name (bot)``."""
        return f"{self.manifest.name} (bot)"

    def check(self, game: Game) -> None:
        """Raise ``BotConfigError`` when the bot's manifest does not list the game."""
        self.manifest.check_game(game.id)

    def create_agent(self) -> LocalProcessAgent:
        """A local-process agent for the bot (not yet launched)."""
        return LocalProcessAgent(self.manifest, temp_root=self.temp_root)


@dataclass(frozen=True)
class DockerSeat:
    """A bot image, run in a hardened container (``arena.sandbox``)."""

    image: BotImage
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    temp_root: Path | None = None
    """Where the per-seat socket folders go (default: the system's temporary folder)."""
    allow_unenforced: frozenset[str] = frozenset()
    """Limits the engine may fail to enforce (for trusted bots only)."""
    cpuset: str | None = None
    """The cores to pin the container to (``"1"``, ``"0-1"``); ignored on one core."""
    command: tuple[str, ...] = ()
    """A command run instead of the image's own (empty: the image's)."""

    @classmethod
    def from_image(cls, ref: str, *, limits: SandboxLimits | None = None,
                   temp_root: Path | None = None,
                   allow_unenforced: frozenset[str] = frozenset(),
                   cpuset: str | None = None) -> DockerSeat:
        """A seat for a local image (``ImageNotFound`` / ``DockerUnavailable`` when none)."""
        from arena.sandbox.images import inspect_bot_image
        return cls(inspect_bot_image(ref), limits or SandboxLimits(), temp_root,
                   frozenset(allow_unenforced), cpuset)

    @classmethod
    def from_folder(cls, path: str | Path, *, limits: SandboxLimits | None = None,
                    temp_root: Path | None = None,
                    allow_unenforced: frozenset[str] = frozenset(),
                    cpuset: str | None = None) -> DockerSeat:
        """A seat for a bot folder, building its image first (``BuildError`` on failure)."""
        from arena.sandbox.images import build_bot_image
        return cls(build_bot_image(Path(path)), limits or SandboxLimits(), temp_root,
                   frozenset(allow_unenforced), cpuset)

    @property
    def label(self) -> str:
        """``name (docker)``."""
        return f"{self.image.name} (docker)"

    def check(self, game: Game) -> None:
        """Raise ``BotConfigError`` when the image's labels do not list the game,
        ``RegistryError`` when a pinned image is missing here and cannot be pulled, and
        ``LimitsNotEnforced`` when the engine lacks a limit not allowed (probed once, in the
        base image, or in the bot's own image where the base is missing: so it is pulled
        first)."""
        self.image.check_game(game.id)
        from arena.sandbox.probe import require_enforced
        from arena.sandbox.registry import ensure_local
        ensure_local(self.image)
        require_enforced(self.allow_unenforced, self.image.image_id, self.limits)

    def create_agent(self) -> DockerAgent:
        """A Docker agent for the image (not yet launched)."""
        return DockerAgent(self.image, self.limits, temp_root=self.temp_root,
                           allow_unenforced=self.allow_unenforced, cpuset=self.cpuset,
                           command=self.command)


HOST_MATCHES_ENV = "CARDARENA_HOST_MATCHES"
"""How many matches this host may play at once (set by the local pool and ``arena worker``
for their workers; 1 when unset)."""


def host_matches() -> int:
    """The matches this host may play at once, as ``CARDARENA_HOST_MATCHES`` says (at least
    1; 1 when it is unset or not a number)."""
    text = os.environ.get(HOST_MATCHES_ENV, "").strip()
    return max(1, int(text)) if text.isdigit() else 1


def pin_to_cores(seats: Sequence[SeatSpec], cores: Sequence[int] | None = None,
                 matches: int | None = None) -> list[SeatSpec]:
    """The seats with each Docker seat pinned to a core of its own, in seat order, when the
    machine (``cores``: this process's usable cores by default) has one for each Docker seat
    of every match it may play at once (``matches``: ``host_matches()`` by default) and at
    least two; other seats, and every seat when cores are short, are left as they are (under
    their CPU quotas): matches at once pinned to shared cores would wait for each other's
    seats while a core stays idle."""
    usable = sorted(os.sched_getaffinity(0)) if cores is None else list(cores)
    docker = [index for index, seat in enumerate(seats)
              if isinstance(seat, DockerSeat) and seat.cpuset is None]
    pinned = list(seats)
    at_once = host_matches() if matches is None else max(1, matches)
    if not docker or len(usable) < max(2, len(docker) * at_once):
        return pinned
    for core, index in zip(usable, docker, strict=False):
        pinned[index] = replace(cast(DockerSeat, seats[index]), cpuset=str(core))
    return pinned
