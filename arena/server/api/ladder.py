"""The ladder through the API: its standing for anyone, and a bot withdrawn from it or
brought back by its owner (or an admin)."""

from __future__ import annotations

from arena.league.create import LeagueError
from arena.league.ladder import LADDER_NAME, is_ladder, set_membership, standing
from arena.protocol.schema import platform as pb
from arena.server.api.auth import Caller
from arena.server.api.bots import find_bot
from arena.server.api.errors import denied, invalid, not_found
from arena.store import Store
from arena.store.audit import audit
from arena.store.leagues import league_named

NO_LADDER = "this service has no ladder: its operator starts one with arena serve --ladder"


def ladder_id(store: Store) -> int:
    """The ladder's league id, or NOT_FOUND."""
    with store.session() as session:
        league = league_named(session, LADDER_NAME)
        if league is None or not is_ladder(league):
            raise not_found(NO_LADDER)
        return league.id


def get_ladder(store: Store) -> pb.GetLadderResponse:
    """The ladder's games, its active bots with their done sets, and its sets in flight."""
    games, sets, in_flight, done = standing(store, ladder_id(store))
    return pb.GetLadderResponse(
        games=games, entries=[pb.LadderEntry(bot=bot, sets=count) for bot, count in sets.items()],
        in_flight=in_flight, done=done)


def set_entry(store: Store, caller: Caller, bot_name: str, active: bool) -> None:
    """Withdraw the bot from the ladder or bring it back: its owner, or an admin."""
    league_id = ladder_id(store)
    with store.session() as session:
        bot = find_bot(session, bot_name)
        if bot.owner_id != caller.id and not caller.is_admin:
            raise denied(f"the bot {bot_name!r} is not yours; only its owner or an admin may "
                         "withdraw it from the ladder")
    try:
        set_membership(store, league_id, bot_name, active)
    except LeagueError as error:
        raise invalid(str(error)) from None
    with store.session() as session:
        audit(session, caller.name, "ladder.joined" if active else "ladder.withdrawn",
              f"bot:{bot_name}")
        session.commit()
