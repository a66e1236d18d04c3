"""A bot's logs: what it wrote to stderr in each deal it played, from the stored records as
its owner may see them (``arena.server.records``)."""

from __future__ import annotations

from arena.protocol.schema import platform as pb
from arena.server.api.watch import plain_record
from arena.server.records import Viewer, viewable_records
from arena.store import Store
from arena.store.bots import version_ids_of
from arena.store.matches import matches_played_by

DEFAULT_LIMIT = 50
"""Log entries returned when the request sets no limit."""


def bot_logs(store: Store, viewer: Viewer, bot_id: int, league: str | None,
             limit: int) -> list[pb.BotLogEntry]:
    """The bot's seats in its finished matches, newest matches first, at most ``limit``, as
    the viewer (the bot's owner) may see them."""
    limit = limit or DEFAULT_LIMIT
    entries: list[pb.BotLogEntry] = []
    with store.session() as session:
        versions = version_ids_of(session, bot_id)
        for match in matches_played_by(session, versions, league):
            mine = {index for index, version in enumerate(match.entrants) if version in versions}
            for deal, data in enumerate(viewable_records(session, match, viewer)):
                record = plain_record(data)
                seats = record.conduct.seats if record.conduct is not None else ()
                for seat, entrant in enumerate(data.get("entrants", [])):
                    if int(entrant) not in mine or seat >= len(seats):
                        continue
                    entries.append(pb.BotLogEntry(match_id=match.id, deal=deal, seat=seat,
                                                  reason=seats[seat].reason,
                                                  stderr=seats[seat].stderr))
                    if len(entries) >= limit:
                        return entries
    return entries
