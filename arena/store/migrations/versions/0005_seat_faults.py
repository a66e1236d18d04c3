"""Seat results count their forfeited deals by reason code (``faults``) and in all
(``forfeits``).

The rows already there are filled from their matches' deal records, which name each seat's
reason code: a deal's seat ``s`` is entrant ``entrants[s]`` of its match, the row's ``seat``.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NO_FORFEIT = frozenset({"OK", "VOID_INFRA"})
"""Reason codes that are no forfeit."""


def upgrade() -> None:
    """Add the columns, then count the forfeits of the results already there."""
    json_type = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    with op.batch_alter_table("seat_results") as batch:
        batch.add_column(sa.Column("forfeits", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("faults", json_type, nullable=True))
    _fill_faults(op.get_bind(), json_type)
    with op.batch_alter_table("seat_results") as batch:
        batch.alter_column("faults", existing_type=json_type, nullable=False)


def _fill_faults(connection: sa.Connection, json_type: Any) -> None:
    """Count each seat's forfeited deals from its match's stored deal records."""
    records = sa.table("match_records", sa.column("match_id"), sa.column("record", json_type))
    results = sa.table("seat_results", sa.column("match_id"), sa.column("seat"),
                       sa.column("forfeits"), sa.column("faults", json_type))
    counts: dict[tuple[str, int], Counter[str]] = {}
    for match_id, record in connection.execute(sa.select(records.c.match_id,
                                                         records.c.record)):
        entrants = record.get("entrants") or [] if isinstance(record, dict) else []
        reasons = record.get("reasons") or [] if isinstance(record, dict) else []
        for seat, reason in enumerate(reasons):
            if seat < len(entrants) and reason not in NO_FORFEIT:
                counts.setdefault((match_id, int(entrants[seat])), Counter())[str(reason)] += 1
    connection.execute(results.update().values(faults={}))
    for (match_id, seat), faults in counts.items():
        connection.execute(results.update().where(
            results.c.match_id == match_id, results.c.seat == seat,
        ).values(faults=dict(faults), forfeits=sum(faults.values())))


def downgrade() -> None:
    """Drop the columns."""
    with op.batch_alter_table("seat_results") as batch:
        batch.drop_column("faults")
        batch.drop_column("forfeits")
