"""The errors of bot folders: a bot that cannot be set up at all."""

from __future__ import annotations


class BotConfigError(ValueError):
    """A bot that cannot be run at all: a missing folder, a bad ``bot.toml``, a game it lacks."""
