"""Migration 0007 on a database at 0006 with data: nothing is lost, old tokens keep working
(never expiring), nobody is an admin, and a downgrade and upgrade again keep the rows."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import command
from sqlalchemy import select

from arena.store import League, Match, MatchRecordRow, User, open_store
from arena.store.accounts import check_token, token_digest
from arena.store.engine import make_engine
from arena.store.location import database_url
from arena.store.migrate import alembic_config
from arena.store.models import ApiToken, AuditEntry, Bot, BotVersion, LeagueEntrant

WHEN = datetime(2026, 12, 1, tzinfo=UTC).replace(tzinfo=None)
"""A time as rows of 0006 hold it."""

ROWS: dict[str, list[dict[str, object]]] = {
    "users": [{"id": 1, "name": "alice", "created_at": WHEN}],
    "api_tokens": [{"id": 1, "user_id": 1, "token_sha256": token_digest("old-token"),
                    "created_at": WHEN}],
    "bots": [{"id": 1, "name": "rnd", "owner_id": 1, "created_at": WHEN}],
    "bot_versions": [{"id": 1, "bot_id": 1, "version": "1", "kind": "docker",
                      "image_ref": "img", "fingerprint": "f", "games": ["*"],
                      "language": "python", "created_at": WHEN}],
    "leagues": [{"id": 1, "name": "old", "games": ["briscola"], "deals": 1, "rounds": 1,
                 "settings": {}, "created_at": WHEN}],
    "league_entrants": [{"id": 1, "league_id": 1, "bot_version_id": 1, "position": 0}],
    "matches": [{"id": "m", "league_id": 1, "game_id": "briscola", "params": {}, "seats": 2,
                 "seed": 1, "seed_source": "given", "entrants": [1, 1], "rotations": [0],
                 "status": "done", "attempts": 1, "created_at": WHEN}],
    "match_records": [{"id": 1, "match_id": "m", "deal": 0, "record": {"format": "x"}}],
}
"""Rows of each table, in an order their references allow."""


def at_0006_with_rows(url: str) -> None:
    """Bring an empty database to revision 0006 and fill it with ``ROWS``."""
    engine = make_engine(database_url(url))
    try:
        with engine.connect() as connection:
            command.upgrade(alembic_config(connection), "0006")
            connection.commit()
        metadata = sa.MetaData()
        metadata.reflect(engine)
        with engine.begin() as connection:
            for table, rows in ROWS.items():
                connection.execute(metadata.tables[table].insert(), rows)
    finally:
        engine.dispose()


def test_0007_upgrades_a_database_at_0006_keeping_its_rows(store_url: str) -> None:
    """Every row is there after the upgrade; the old token works and never expires."""
    at_0006_with_rows(store_url)
    with open_store(store_url) as store, store.session() as session:
        assert store.revision >= "0007"
        user = session.scalars(select(User)).one()
        assert user.name == "alice" and not user.is_admin and user.disabled_at is None
        token = session.scalars(select(ApiToken)).one()
        assert token.expires_at is None and token.revoked_at is None and token.prefix is None
        assert check_token(session, "old-token").user is not None
        assert session.scalars(select(Bot.disabled_at)).one() is None
        assert session.scalars(select(BotVersion.build_seconds)).one() is None
        assert session.scalars(select(League.owner_id)).one() is None
        assert [match.id for match in session.scalars(select(Match))] == ["m"]
        assert session.scalars(select(MatchRecordRow.record)).one() == {"format": "x"}
        assert len(session.scalars(select(LeagueEntrant)).all()) == 1
        assert session.scalars(select(AuditEntry)).all() == []
        session.get_one(League, 1).owner_id = user.id
        session.commit()
    with open_store(store_url) as store, store.session() as session:
        session.execute(sa.delete(User))
        session.commit()
        assert session.scalars(select(League.owner_id)).one() is None  # ON DELETE SET NULL
        assert session.scalars(select(Match.id)).all() == ["m"]


def test_a_downgrade_to_0006_and_an_upgrade_again_keep_the_rows(store_url: str) -> None:
    """Down and up again: the matches and tokens stay, and the league's owner is empty or kept
    (SQLite keeps the column down the way)."""
    at_0006_with_rows(store_url)
    with open_store(store_url) as store, store.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "0006")
        connection.commit()
    with open_store(store_url) as store, store.session() as session:
        assert [match.id for match in session.scalars(select(Match))] == ["m"]
        assert check_token(session, "old-token").user is not None
        assert session.scalars(select(League.owner_id)).one() is None
