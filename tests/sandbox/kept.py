"""A Docker seat that keeps the agents it makes, so tests can check their containers."""

from __future__ import annotations

from arena.agents.container import DockerAgent
from arena.agents.seats import DockerSeat
from arena.games import Game


class KeptDockerSeat:
    """A Docker seat that keeps the agents it makes, so tests can check their containers."""

    def __init__(self, seat: DockerSeat) -> None:
        """Wrap the seat."""
        self.seat = seat
        self.agents: list[DockerAgent] = []

    @property
    def label(self) -> str:
        """The seat's label."""
        return self.seat.label

    def check(self, game: Game) -> None:
        """As the seat checks."""
        self.seat.check(game)

    def create_agent(self) -> DockerAgent:
        """A Docker agent, kept."""
        agent = self.seat.create_agent()
        self.agents.append(agent)
        return agent
