"""The operator's controls: admins, disabled users and bots, tokens that expire and can be
revoked, invitations, and an audit log; a bot version's build time and a league's owner.

Tokens already there keep working: they never expire (``expires_at`` is null) and have no
shown prefix. Nobody is an admin until an operator grants it.

On SQLite ``leagues`` is copied to add its reference to ``users`` (the store migrates with
foreign keys off, see ``arena.store.migrate``); every other column is added and dropped in
place. SQLite cannot drop a column that refers to another table in place, and copying the
table back could delete the rows that refer to it, so a downgrade there leaves
``leagues.owner_id`` (earlier revisions ignore it) and an upgrade keeps it.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns, then create ``invitations`` and ``audit_log``."""
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("is_admin", sa.Boolean(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("bots") as batch:
        batch.add_column(sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("prefix", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("build_seconds", sa.Float(), nullable=True))
    _add_league_owner()
    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code_sha256", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_by", sa.Integer(), nullable=True),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], ondelete="SET NULL",
                                name=op.f("fk_invitations_created_by_users")),
        sa.ForeignKeyConstraint(["used_by"], ["users.id"], ondelete="SET NULL",
                                name=op.f("fk_invitations_used_by_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invitations")),
        sa.UniqueConstraint("code_sha256", name=op.f("uq_invitations_code_sha256")),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("target", sa.String(length=300), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index(op.f("ix_audit_log_at"), "audit_log", ["at"], unique=False)


def _add_league_owner() -> None:
    """Add ``leagues.owner_id``, a nullable reference to ``users`` (kept when already there)."""
    if "owner_id" in {column["name"] for column in sa.inspect(op.get_bind())
                      .get_columns("leagues")}:
        return
    with op.batch_alter_table("leagues") as batch:
        batch.add_column(sa.Column("owner_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_leagues_owner_id_users"), "users", ["owner_id"],
                                 ["id"], ondelete="SET NULL")


def downgrade() -> None:
    """Drop the tables and the columns (but ``leagues.owner_id`` on SQLite)."""
    op.drop_index(op.f("ix_audit_log_at"), table_name="audit_log")
    op.drop_table("audit_log")
    op.drop_table("invitations")
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint(op.f("fk_leagues_owner_id_users"), "leagues", type_="foreignkey")
        op.drop_column("leagues", "owner_id")
    for table, column in DROPPED:
        op.drop_column(table, column)


DROPPED = (("bot_versions", "build_seconds"), ("api_tokens", "revoked_at"),
           ("api_tokens", "expires_at"), ("api_tokens", "prefix"), ("bots", "disabled_at"),
           ("users", "disabled_at"), ("users", "is_admin"))
"""The columns a downgrade drops in place, but ``leagues.owner_id``."""
