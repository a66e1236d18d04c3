"""The initial schema: users, bots and versions, leagues, matches, seat results, records.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[Any]:
    """JSON, stored as JSONB on PostgreSQL."""
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _time() -> sa.DateTime:
    """A timezone-aware timestamp."""
    return sa.DateTime(timezone=True)


def _enum(name: str, *values: str) -> sa.Enum:
    """A VARCHAR enum with a CHECK constraint (the same on every database)."""
    return sa.Enum(*values, name=name, native_enum=False, create_constraint=True, length=16)


def upgrade() -> None:
    """Create every table."""
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", _time(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name", name=op.f("uq_users_name")),
    )
    op.create_table(
        "leagues",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("games", _json(), nullable=False),
        sa.Column("deals", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("settings", _json(), nullable=False),
        sa.Column("created_at", _time(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leagues")),
        sa.UniqueConstraint("name", name=op.f("uq_leagues_name")),
    )
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=True),
        sa.Column("created_at", _time(), nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["users.id"], name=op.f("fk_bots_owner_id_users"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bots")),
        sa.UniqueConstraint("name", name=op.f("uq_bots_name")),
    )
    op.create_table(
        "bot_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.String(length=100), nullable=False),
        sa.Column("kind", _enum("bot_kind", "process", "docker"), nullable=False),
        sa.Column("path", sa.Text(), nullable=True),
        sa.Column("image_ref", sa.String(length=500), nullable=True),
        sa.Column("image_id", sa.String(length=100), nullable=True),
        sa.Column("fingerprint", sa.String(length=100), nullable=False),
        sa.Column("games", _json(), nullable=False),
        sa.Column("created_at", _time(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_bot_versions_bot_id_bots"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_versions")),
        sa.UniqueConstraint("bot_id", "version", "fingerprint",
                            name=op.f("uq_bot_versions_bot_id_version_fingerprint")),
    )
    op.create_table(
        "league_entrants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["bot_version_id"], ["bot_versions.id"],
                                name=op.f("fk_league_entrants_bot_version_id_bot_versions")),
        sa.ForeignKeyConstraint(["league_id"], ["leagues.id"],
                                name=op.f("fk_league_entrants_league_id_leagues"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_entrants")),
        sa.UniqueConstraint("league_id", "bot_version_id",
                            name=op.f("uq_league_entrants_league_id_bot_version_id")),
        sa.UniqueConstraint("league_id", "position",
                            name=op.f("uq_league_entrants_league_id_position")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(length=200), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=100), nullable=False),
        sa.Column("params", _json(), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("entrants", _json(), nullable=False),
        sa.Column("rotations", _json(), nullable=False),
        sa.Column("status", _enum("match_status", "pending", "leased", "done", "void"),
                  nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_owner", sa.String(length=200), nullable=True),
        sa.Column("lease_expires", _time(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", _time(), nullable=False),
        sa.Column("started_at", _time(), nullable=True),
        sa.Column("finished_at", _time(), nullable=True),
        sa.CheckConstraint("attempts >= 0", name=op.f("ck_matches_attempts_not_negative")),
        sa.CheckConstraint("seats >= 1", name=op.f("ck_matches_seats_positive")),
        sa.ForeignKeyConstraint(["league_id"], ["leagues.id"],
                                name=op.f("fk_matches_league_id_leagues"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index("ix_matches_league_id_status", "matches", ["league_id", "status"])
    op.create_index("ix_matches_status_lease_expires", "matches", ["status", "lease_expires"])
    op.create_table(
        "seat_results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=200), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("total_return", sa.Float(), nullable=False),
        sa.Column("returns", _json(), nullable=False),
        sa.Column("forfeited", sa.Boolean(), nullable=False),
        sa.Column("decisions", sa.Integer(), nullable=False),
        sa.Column("decision_us_mean", sa.Float(), nullable=True),
        sa.Column("decision_us_p50", sa.Integer(), nullable=True),
        sa.Column("decision_us_p95", sa.Integer(), nullable=True),
        sa.Column("decision_us_max", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["bot_version_id"], ["bot_versions.id"],
                                name=op.f("fk_seat_results_bot_version_id_bot_versions")),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"],
                                name=op.f("fk_seat_results_match_id_matches"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seat_results")),
        sa.UniqueConstraint("match_id", "seat", name=op.f("uq_seat_results_match_id_seat")),
    )
    op.create_index(op.f("ix_seat_results_bot_version_id"), "seat_results", ["bot_version_id"])
    op.create_table(
        "match_records",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=200), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False),
        sa.Column("record", _json(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"],
                                name=op.f("fk_match_records_match_id_matches"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match_records")),
        sa.UniqueConstraint("match_id", "deal", name=op.f("uq_match_records_match_id_deal")),
    )


def downgrade() -> None:
    """Drop every table."""
    op.drop_table("match_records")
    op.drop_index(op.f("ix_seat_results_bot_version_id"), table_name="seat_results")
    op.drop_table("seat_results")
    op.drop_index("ix_matches_status_lease_expires", table_name="matches")
    op.drop_index("ix_matches_league_id_status", table_name="matches")
    op.drop_table("matches")
    op.drop_table("league_entrants")
    op.drop_table("bot_versions")
    op.drop_table("bots")
    op.drop_table("leagues")
    op.drop_table("users")
