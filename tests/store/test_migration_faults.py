"""Migration 0005 on seat results stored before it: their forfeits counted from the records."""

from __future__ import annotations

from alembic import command
from sqlalchemy import select

from arena.store import (
    Bot,
    BotKind,
    BotVersion,
    League,
    Match,
    MatchRecordRow,
    MatchStatus,
    SeatResult,
    open_store,
)
from arena.store.migrate import alembic_config

REASONS = [["CRASH", "OK"], ["OK", "CRASH"], ["TIMEOUT", "VOID_INFRA"]]
"""Each deal's reason per seat; entrant ``e`` sits at seat ``(e + deal) % 2``."""


def test_old_seat_results_get_their_forfeits_from_the_deal_records(store_url: str) -> None:
    """Seat 0 of the match (entrant 0) crashed twice and timed out once; entrant 1 never
    forfeited (VOID_INFRA is no forfeit)."""
    with open_store(store_url) as store, store.session() as session:
        bot = Bot(name="b")
        versions = [BotVersion(bot=bot, version=str(n), kind=BotKind.PROCESS, path="/x",
                               fingerprint=str(n)) for n in range(2)]
        league = League(name="old", games=["briscola"], deals=1, rounds=1)
        session.add_all([bot, *versions, league])
        session.flush()
        match = Match(id="m", league_id=league.id, game_id="briscola", seats=2, seed=1,
                      entrants=[versions[0].id, versions[1].id], rotations=[0, 1, 2],
                      status=MatchStatus.DONE)
        session.add(match)
        session.flush()
        for seat, version in enumerate(versions):
            session.add(SeatResult(match_id="m", seat=seat, bot_version_id=version.id,
                                   total_return=0.0, returns=[0, 0, 0]))
        for deal, reasons in enumerate(REASONS):
            entrants = [(seat - deal) % 2 for seat in range(2)]
            session.add(MatchRecordRow(match_id="m", deal=deal, record={
                "rotation": deal, "entrants": entrants, "reasons": reasons}))
        session.commit()
    with open_store(store_url) as store, store.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "0004")
        connection.commit()
    with open_store(store_url) as store, store.session() as session:
        rows = {row.seat: row for row in session.scalars(select(SeatResult))}
        assert rows[0].faults == {"CRASH": 2, "TIMEOUT": 1} and rows[0].forfeits == 3
        assert rows[1].faults == {} and rows[1].forfeits == 0
        session.commit()
