"""The continuous ladder: an entrant can be retired (a newer version of its bot replaced it),
and it starts from a count of sets so that a newcomer is not owed every set played before it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``league_entrants.retired_at`` and ``league_entrants.base_sets``."""
    with op.batch_alter_table("league_entrants") as batch:
        batch.add_column(sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("base_sets", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    """Drop the two columns."""
    with op.batch_alter_table("league_entrants") as batch:
        batch.drop_column("base_sets")
        batch.drop_column("retired_at")
