"""Every upload a user makes, built or refused, with the time the service spent on it: the
quotas of uploads and build minutes a day count these, so they hold across restarts and count
failed builds too.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``upload_attempts``."""
    op.create_table(
        "upload_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("outcome", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE",
                                name=op.f("fk_upload_attempts_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_upload_attempts")),
    )
    op.create_index(op.f("ix_upload_attempts_user_id"), "upload_attempts", ["user_id"],
                    unique=False)
    op.create_index(op.f("ix_upload_attempts_created_at"), "upload_attempts", ["created_at"],
                    unique=False)


def downgrade() -> None:
    """Drop ``upload_attempts``."""
    op.drop_index(op.f("ix_upload_attempts_created_at"), table_name="upload_attempts")
    op.drop_index(op.f("ix_upload_attempts_user_id"), table_name="upload_attempts")
    op.drop_table("upload_attempts")
