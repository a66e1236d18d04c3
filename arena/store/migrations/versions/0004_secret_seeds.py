"""Leagues keep a seed secret; matches say where their seed came from and where they sit.

Matches made before keep their ids (``LEAGUE/GAME/rR/tT/dD``), which name their place in the
schedule: it is copied into the new columns, and their seeds, derived from a league seed that
anyone could read, are marked ``given``.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PLACES = ("position", "round_index", "table_index", "deal_index")
"""The columns that say where a match sits in its league's schedule."""


def upgrade() -> None:
    """Add the columns, then fill the places of the matches already there."""
    with op.batch_alter_table("leagues") as batch:
        batch.add_column(sa.Column("seed_secret", sa.LargeBinary(length=64), nullable=True))
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column(
            "seed_source", sa.Enum("secret", "given", name="seed_source", native_enum=False,
                                   create_constraint=True, length=16),
            nullable=False, server_default="given"))
        for column in PLACES:
            batch.add_column(sa.Column(column, sa.Integer(), nullable=False, server_default="0"))
        batch.create_index("ix_matches_league_id_position", ["league_id", "position"])
    _fill_places(op.get_bind())


def _fill_places(connection: sa.Connection) -> None:
    """Read each old match's place from its id and number the matches in schedule order."""
    leagues = sa.table("leagues", sa.column("id"), sa.column("games", sa.JSON()))
    matches = sa.table("matches", sa.column("id"), sa.column("league_id"),
                       sa.column("game_id"), *(sa.column(name) for name in PLACES))
    games = {row.id: list(row.games or []) for row in connection.execute(
        sa.select(leagues.c.id, leagues.c.games))}
    places = []
    for match_id, league_id, game in connection.execute(
            sa.select(matches.c.id, matches.c.league_id, matches.c.game_id)):
        parts = match_id.rsplit("/", 3)
        try:
            round_index, table, deal = (int(part[1:]) for part in parts[-3:])
        except ValueError:
            round_index = table = deal = 0
        order = games.get(league_id, [])
        key = (order.index(game) if game in order else len(order), round_index, table, deal)
        places.append((league_id, key, match_id))
    places.sort()
    position: dict[int, int] = {}
    for league_id, (_, round_index, table, deal), match_id in places:
        position[league_id] = position.get(league_id, -1) + 1
        connection.execute(matches.update().where(matches.c.id == match_id).values(
            position=position[league_id], round_index=round_index, table_index=table,
            deal_index=deal))


def downgrade() -> None:
    """Drop the columns."""
    with op.batch_alter_table("matches") as batch:
        batch.drop_index("ix_matches_league_id_position")
        for column in reversed(PLACES):
            batch.drop_column(column)
        batch.drop_constraint(op.f("ck_matches_seed_source"), type_="check")
        batch.drop_column("seed_source")
    with op.batch_alter_table("leagues") as batch:
        batch.drop_column("seed_secret")
