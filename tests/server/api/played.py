"""A finished match between two users' uploaded bots, stored as a league run would store it,
with each seat's stderr naming its owner: for tests of who may read which logs."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from arena.games import load_game
from arena.match.local import play_local
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import RemoteArena
from arena.store import Bot, BotVersion, League, Match, MatchRecordRow, MatchStatus, SeatResult
from arena.store.models import utc_now
from tests.server.api.conftest import Service

MATCH_ID = "0123456789abcdef"


@dataclass(frozen=True)
class Played:
    """The match's id and the marker each bot wrote to stderr."""

    match_id: str
    markers: dict[str, str]


def played_match(service: Service, players: dict[str, RemoteArena]) -> Played:
    """Each user uploads a bot named after it (``USER-bot``); a done match between them is
    stored, with the stderr ``USER-SECRET`` in each bot's seat."""
    for user, client in players.items():
        client.call("SubmitBot", pb.SubmitBotRequest(name=f"{user}-bot", archive=user.encode()))
    with service.store.session() as session:
        versions = [session.scalars(select(BotVersion.id).join(Bot).where(
            Bot.name == f"{user}-bot")).one() for user in players]
    markers = {f"{user}-bot": f"{user.upper()}-SECRET" for user in players}
    record = play_local(load_game("briscola"), 7, ["random", "random"]).to_dict()
    record.update(rotation=0, entrants=[0, 1], match_id=MATCH_ID, decision_us=[
        None] * len(record["actions"]), seats=[
        {"agent": {"name": bot}, "reason": "OK", "detail": "", "stderr": marker}
        for bot, marker in markers.items()], reasons=["OK", "OK"])
    with service.store.session() as session:
        league = League(name="logs", games=["briscola"], deals=1, rounds=1)
        session.add(league)
        session.flush()
        session.add(Match(id=MATCH_ID, league_id=league.id, game_id="briscola", seats=2,
                          seed=7, entrants=versions, rotations=[0],
                          status=MatchStatus.DONE, finished_at=utc_now()))
        session.flush()
        session.add_all([SeatResult(match_id=MATCH_ID, seat=seat, bot_version_id=version,
                                    total_return=0.0, returns=[0.0])
                         for seat, version in enumerate(versions)])
        session.add(MatchRecordRow(match_id=MATCH_ID, deal=0, record=record))
        session.commit()
    return Played(MATCH_ID, markers)
