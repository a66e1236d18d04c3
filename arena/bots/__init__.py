"""Bot folders: the manifest (``bot.toml``), the host build of a compiled bot, and their errors.

``BotManifest`` reads and checks a bot folder; ``ensure_built`` runs its ``build`` command on
the host before the bot plays as a process or its image is built; ``BotConfigError`` names
why a bot cannot be run at all. The agents and the sandbox both build on this package.
"""

from arena.bots.errors import BotConfigError
from arena.bots.hostbuild import ensure_built, forget_builds
from arena.bots.manifest import ALL_GAMES, MANIFEST, BotManifest

__all__ = [
    "ALL_GAMES",
    "MANIFEST",
    "BotConfigError",
    "BotManifest",
    "ensure_built",
    "forget_builds",
]
