"""The web pages of ``arena serve``: leaderboards, bots, leagues, reports and match replays."""

from arena.server.web.app import create_app

__all__ = ["create_app"]
