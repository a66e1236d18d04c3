"""Bot folders: ``bot.toml`` names the bot, its language, its command and the games it plays.

```toml
name = "mc"
version = "1.2.0"
language = "python"
command = ["python", "bot.py"]     # run in the bot's folder
games = ["*"]                      # or game ids, such as ["briscola", "tressette"]
build = ["sh", "build.sh"]         # optional: run on the host, in the bot's folder, before use
base = "python"                    # optional: the image's base, "python" or "openspiel"
matches_at_once = 16               # optional: deals one process may play at once (default 1)
```

A bot in a compiled language names its ``build`` command; the arena runs it before the bot
plays as a process and before its image is built (``arena.bots.hostbuild``).

A leading ``python`` or ``python3`` in the command is replaced by the arena's own interpreter,
so a Python bot runs with the packages installed next to the arena (the SDK among them).
``matches_at_once`` lets the arena play up to that many deals with one process at the same
time, each on a stream of its own and each of another deal (a process is never shown a deal
twice, nor two seats of one deal: ``arena.agents.ledger``); the arena tells the process in
``CARDARENA_MATCHES_AT_ONCE``, and the Python SDK serves that many streams at once. A bot
that keeps state between matches, or that computes long, should leave it at 1.

Unknown keys are ignored, so later versions may add some.
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.errors import BotConfigError

MANIFEST = "bot.toml"
"""The file name of a bot's manifest."""

PYTHON_NAMES = frozenset({"python", "python3"})
"""Command heads replaced by the arena's interpreter."""

ALL_GAMES = "*"

MAX_MATCHES_AT_ONCE = 64
"""The most deals a manifest may let one process play at once."""

BASES = ("python", "openspiel")
"""The base images a bot's Docker image may build on (``base``; the first is the default)."""


@dataclass(frozen=True)
class BotManifest:
    """A bot's ``bot.toml``, checked, with the folder it runs in."""

    folder: Path
    name: str
    version: str
    language: str
    command: tuple[str, ...]
    games: tuple[str, ...]
    source: str
    """The bot path as given (file or folder), for messages and records."""
    build: tuple[str, ...] = ()
    """The host command that compiles the bot, run in its folder; empty when none is needed."""
    base: str = BASES[0]
    """The base image its Docker image builds on, one of ``BASES``."""
    matches_at_once: int = 1
    """Deals one process of the bot may play at the same time."""

    @classmethod
    def load(cls, path: str | Path) -> BotManifest:
        """Read a bot folder (or its ``bot.toml``), or raise ``BotConfigError`` naming why."""
        given = str(path)
        target = Path(path)
        if not target.exists():
            raise BotConfigError(f"bot {given}: no such file or directory")
        file = target / MANIFEST if target.is_dir() else target
        if not file.is_file():
            raise BotConfigError(f"bot {given}: no {MANIFEST} in this folder")
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except OSError as error:
            raise BotConfigError(f"bot {given}: cannot read {file.name}: "
                                 f"{error.strerror or error}") from None
        except UnicodeDecodeError:
            raise BotConfigError(f"bot {given}: {file.name} is not UTF-8 text") from None
        except tomllib.TOMLDecodeError as error:
            raise BotConfigError(f"bot {given}: {file.name} is not valid TOML: {error}") from None
        return cls(
            folder=file.resolve().parent,
            name=_text(data, "name", given),
            version=_text(data, "version", given),
            language=_text(data, "language", given),
            command=_strings(data, "command", given, required=True),
            games=_strings(data, "games", given, required=False) or (ALL_GAMES,),
            source=given,
            build=_strings(data, "build", given, required=False),
            base=_base(data, given),
            matches_at_once=_matches_at_once(data, given),
        )

    def plays(self, game_id: str) -> bool:
        """True when the bot says it plays this game."""
        return ALL_GAMES in self.games or game_id in self.games

    def check_game(self, game_id: str) -> None:
        """Raise ``BotConfigError`` when the bot does not play this game."""
        if not self.plays(game_id):
            raise BotConfigError(f"bot {self.name} ({self.source}) does not play {game_id}: "
                                 f"its {MANIFEST} lists games {', '.join(self.games)}")

    def argv(self) -> list[str]:
        """The command to run, with a leading ``python`` replaced by this interpreter."""
        head, *rest = self.command
        return [sys.executable if head in PYTHON_NAMES else head, *rest]

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for the match record."""
        return {"kind": "bot", "name": self.name, "version": self.version,
                "language": self.language, "path": self.source}


def _text(data: dict[str, Any], key: str, given: str) -> str:
    """A required non-empty string."""
    if key not in data:
        raise BotConfigError(f"bot {given}: {MANIFEST} has no {key!r}")
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise BotConfigError(f"bot {given}: {MANIFEST} {key!r} must be a non-empty string, "
                             f"got {value!r}")
    return value


def _strings(data: dict[str, Any], key: str, given: str, required: bool) -> tuple[str, ...]:
    """A list of non-empty strings (required ones must not be empty)."""
    if key not in data:
        if required:
            raise BotConfigError(f"bot {given}: {MANIFEST} has no {key!r}")
        return ()
    value = data[key]
    if (not isinstance(value, list) or not value
            or not all(isinstance(item, str) and item for item in value)):
        raise BotConfigError(f"bot {given}: {MANIFEST} {key!r} must be a non-empty list of "
                             f"non-empty strings, got {value!r}")
    return tuple(value)


def _matches_at_once(data: dict[str, Any], given: str) -> int:
    """``matches_at_once``: an integer from 1 to ``MAX_MATCHES_AT_ONCE`` (1 when absent)."""
    value = data.get("matches_at_once", 1)
    if type(value) is not int or not 1 <= value <= MAX_MATCHES_AT_ONCE:
        raise BotConfigError(f"bot {given}: {MANIFEST} 'matches_at_once' must be an integer "
                             f"from 1 to {MAX_MATCHES_AT_ONCE}, got {value!r}")
    return value


def _base(data: dict[str, Any], given: str) -> str:
    """The base image's name, one of ``BASES`` (the first when the key is absent)."""
    value = data.get("base", BASES[0])
    if value not in BASES:
        raise BotConfigError(f"bot {given}: {MANIFEST} 'base' must be one of "
                             f"{', '.join(BASES)}, got {value!r}")
    return str(value)
