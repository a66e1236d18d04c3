"""The labels the sandbox puts on what it creates, so the janitor can find leftovers."""

from __future__ import annotations

SANDBOX = "cardarena.sandbox"
"""On every container and image the sandbox creates; value ``1``."""

BOT_NAME = "cardarena.bot.name"
BOT_VERSION = "cardarena.bot.version"
BOT_LANGUAGE = "cardarena.bot.language"
"""The language of a bot image's bot, from its manifest."""
BOT_GAMES = "cardarena.bot.games"
"""The games a bot image plays: its manifest's list, comma-joined (``*`` for all)."""

ARENA_HOST = "cardarena.arena.host"
"""The host name of the arena that started a container."""

ARENA_PID = "cardarena.arena.pid"
"""The process id of the arena that started a container (gone: the container is a leftover)."""

SOCKET_DIR = "cardarena.socket.dir"
"""The host folder holding the container's socket, removed with it."""
