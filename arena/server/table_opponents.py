"""Who a person may play against at a table, and the seat that plays each.

A person may choose a reference policy (``random``, ``heuristic``), one of their own uploaded
bots, or any bot playing on the ladder (whose games are public anyway). A bot is played in its
latest version, as the ladder plays it, and only while neither it nor its owner is disabled.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from arena.agents import PolicySeat, SeatSpec
from arena.league.ladder import LADDER_NAME
from arena.league.run_match import seat_for
from arena.store import Bot, BotVersion
from arena.store.admin import playable
from arena.store.bots import bot_named, uploaded_bots
from arena.store.ladder import members
from arena.store.leagues import league_named

POLICIES = ("random", "heuristic")
"""The reference policies a person may play against."""

BOT_PREFIX = "bot:"
"""An opponent that is a stored bot is chosen as ``bot:NAME``."""


@dataclass(frozen=True)
class Opponent:
    """One choice of opponent: the form's value, the name shown and what it is."""

    key: str
    """``random``, ``heuristic`` or ``bot:NAME``."""
    name: str
    kind: str
    """``policy``, ``your bot`` or ``ladder bot``."""
    games: tuple[str, ...] = ()
    """The games a bot plays (empty: a policy, or a bot that plays every game)."""

    @property
    def label(self) -> str:
        """``NAME (KIND)``."""
        return f"{self.name} ({self.kind})"

    def plays(self, game: str) -> bool:
        """True when the opponent plays ``game``."""
        return not self.games or "*" in self.games or game in self.games


def _latest(bot: Bot) -> BotVersion | None:
    """The bot's version a table plays: its latest, while it may play."""
    return bot.versions[-1] if bot.versions and playable(bot) else None


def _ladder_bots(session: Session) -> list[Bot]:
    """The uploaded bots with a version active on the ladder (its policies are offered as
    policies)."""
    ladder = league_named(session, LADDER_NAME)
    if ladder is None:
        return []
    bots = [entrant.bot_version.bot for entrant in members(session, ladder.id)]
    return [bot for bot in bots if bot.owner_id is not None]


def offered(session: Session, user_id: int) -> list[Opponent]:
    """Every opponent the user may choose: the policies, their own bots, the ladder's bots."""
    choices = [Opponent(name, name, "policy") for name in POLICIES]
    seen: set[str] = set()
    for kind, bots in (("your bot", uploaded_bots(session, user_id)),
                       ("ladder bot", _ladder_bots(session))):
        for bot in sorted(bots, key=lambda bot: bot.name):
            latest = _latest(bot)
            if latest is None or bot.name in seen:
                continue
            seen.add(bot.name)
            choices.append(Opponent(BOT_PREFIX + bot.name, bot.name, kind,
                                    tuple(latest.games or ())))
    return choices


def chosen(session: Session, user_id: int, key: str) -> Opponent | None:
    """The user's choice ``key``, if it is one they may make."""
    return next((choice for choice in offered(session, user_id) if choice.key == key), None)


def seat_of(session: Session, opponent: Opponent) -> tuple[SeatSpec, BotVersion | None]:
    """The seat spec that plays the opponent, and its stored version (None for a policy)."""
    if not opponent.key.startswith(BOT_PREFIX):
        return PolicySeat(opponent.key), None
    bot = bot_named(session, opponent.name, with_versions=True)
    latest = None if bot is None else _latest(bot)
    if latest is None:
        raise LookupError(f"the bot {opponent.name!r} may no longer play")
    return seat_for(latest), latest
