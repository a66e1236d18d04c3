"""The stored golden transcripts: one file per configuration, played by the random policy."""

from __future__ import annotations

from pathlib import Path

from arena.games import Game
from arena.games.testing import golden
from arena.policies import make_policy

from .harness import CONFIGS, Config, config_id, make_game

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden"
GOLDEN_SEED = golden.GOLDEN_SEED
REGENERATE = "python tests/regen_golden.py"
PLAYERS = "each seat plays the seeded random policy"


def golden_path(config: Config) -> Path:
    """The transcript file of a configuration."""
    return GOLDEN_DIR / f"{config_id(config)}.txt"


def random_actor(game: Game, seat: int, seed: int) -> golden.Actor:
    """The seeded random policy of a seat, as a transcript's actor."""
    return make_policy("random", game, seat, seed).act


def transcript(config: Config) -> str:
    """The golden transcript of a configuration: seeded random play, decisions and events."""
    return golden.transcript(make_game(config), GOLDEN_SEED, random_actor, PLAYERS, REGENERATE)


def stale_files() -> list[Path]:
    """Transcript files that belong to no registered configuration."""
    wanted = {golden_path(config) for config in CONFIGS}
    return sorted(path for path in GOLDEN_DIR.glob("*.txt") if path not in wanted)
