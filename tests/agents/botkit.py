"""Bot folders for tests: the scripted bot with a chosen script, and agents that are kept."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.agents import Agent, BotSeat
from arena.games import Game

BOTS = Path(__file__).parent / "bots"
SCRIPTED = BOTS / "scripted_bot.py"
ROOT = Path(__file__).resolve().parents[2]
SAMPLE_RANDOM = ROOT / "sample_bots" / "python" / "random"


def make_bot(folder: Path, *args: str, name: str = "scripted",
             games: tuple[str, ...] = ("*",)) -> Path:
    """A bot folder whose bot.toml runs the scripted bot with ``args``."""
    folder.mkdir(parents=True, exist_ok=True)
    command = ["python", str(SCRIPTED), *args]
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "0.1"\nlanguage = "python"\n'
        f"command = {json.dumps(command)}\ngames = {json.dumps(list(games))}\n",
        encoding="utf-8")
    return folder


class KeptBotSeat:
    """A bot seat that keeps the agents it makes, so tests can check their processes."""

    def __init__(self, path: Path, temp_root: Path) -> None:
        """Read the bot folder; its temporary folders go under ``temp_root``."""
        self.seat = BotSeat.from_path(path, temp_root)
        self.agents: list[Agent] = []

    @property
    def label(self) -> str:
        """The bot seat's label."""
        return self.seat.label

    def check(self, game: Game) -> None:
        """As the bot seat checks."""
        self.seat.check(game)

    def create_agent(self) -> Agent:
        """A local-process agent, kept."""
        agent = self.seat.create_agent()
        self.agents.append(agent)
        return agent


@contextmanager
def short_temp_root() -> Iterator[Path]:
    """A fresh folder with a short path for bots' temporary folders (socket paths are limited
    to 107 bytes, more than a test's tmp_path may leave), removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="cat-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
