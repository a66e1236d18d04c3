"""Migration 0004 on a database holding matches of the old kind (ids naming their place)."""

from __future__ import annotations

from alembic import command
from sqlalchemy import select, text

from arena.store import League, Match, SeedSource, open_store
from arena.store.migrate import alembic_config

OLD_IDS = ["1/briscola/r0/t1/d0", "1/scopa/r1/t0/d0", "1/briscola/r0/t0/d1",
           "1/scopa/r0/t0/d0", "1/briscola/r0/t0/d0", "1/briscola/r1/t0/d0"]


def test_old_matches_keep_their_ids_get_their_places_and_are_not_secret(store_url: str) -> None:
    """Each old match's place is read from its id and numbered in schedule order (game in
    league order); its seed, derived from a readable league seed, is marked given."""
    with open_store(store_url) as store, store.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "0003")
        connection.execute(text(
            "INSERT INTO leagues (id, name, games, deals, rounds, settings, created_at) VALUES "
            "(1, 'old', '[\"scopa\", \"briscola\"]', 2, 2, '{\"seed\": 0}', CURRENT_TIMESTAMP)"))
        for match_id in OLD_IDS:
            connection.execute(text(
                "INSERT INTO matches (id, league_id, game_id, params, seats, seed, entrants, "
                "rotations, status, attempts, created_at) VALUES (:id, 1, :game, '{}', 2, 5, "
                "'[]', '[0, 1]', 'pending', 0, CURRENT_TIMESTAMP)"),
                {"id": match_id, "game": match_id.split("/")[1]})
        connection.commit()
    with open_store(store_url) as store, store.session() as session:
        rows = session.scalars(select(Match).order_by(Match.position)).all()
        assert [row.id for row in rows] == [
            "1/scopa/r0/t0/d0", "1/scopa/r1/t0/d0", "1/briscola/r0/t0/d0",
            "1/briscola/r0/t0/d1", "1/briscola/r0/t1/d0", "1/briscola/r1/t0/d0"]
        assert [row.position for row in rows] == list(range(6))
        assert [(row.round_index, row.table_index, row.deal_index) for row in rows] == [
            (0, 0, 0), (1, 0, 0), (0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)]
        assert {row.seed_source for row in rows} == {SeedSource.GIVEN}
        assert session.get_one(League, 1).seed_secret is None
        session.commit()
