"""The class a bot subclasses: one instance plays one match."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from arena.protocol.schema import agent as pb
    from cardarena_sdk.match import MatchInfo
    from cardarena_sdk.request import Request


class Bot:
    """Subclass it, set ``name`` and ``version``, and override ``act``."""

    name: ClassVar[str] = "bot"
    """The bot's name, sent in Ready and shown in the logs."""
    version: ClassVar[str] = "0.0.0"
    """The bot's version, sent in Ready."""

    match: MatchInfo | None = None
    """The match this instance plays, set before ``on_match_start``."""

    def on_match_start(self, match: MatchInfo) -> None:
        """Called once when the match starts, before any request."""

    def act(self, request: Request) -> int:
        """The wire id of one of ``request.legal_actions`` (``request.legal_ids``)."""
        raise NotImplementedError(f"{type(self).__name__} must override Bot.act")

    def on_match_end(self, end: pb.MatchEnd) -> None:
        """Called once with the result, when the match is over."""
