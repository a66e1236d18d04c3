"""What sits at a seat: a reference policy or a bot folder; each makes the agent that plays."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.agents.base import Agent
from arena.agents.manifest import BotManifest
from arena.agents.policy import PolicyAgent
from arena.agents.process import LocalProcessAgent
from arena.games import Game
from arena.policies import make_policy


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
        """A new agent (one per entrant and duplicate set)."""
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
        """Read the bot's manifest, or raise ``BotConfigError`` naming the problem."""
        return cls(BotManifest.load(path), temp_root)

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
