"""Bot versions record the bot's language (from bot.toml or the image's label).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``bot_versions.language`` (empty for versions recorded before)."""
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("language", sa.String(length=40), nullable=False,
                                   server_default=""))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("language")
