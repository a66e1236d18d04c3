"""Alembic's entry point for the store: runs migrations on the connection it is handed."""

from __future__ import annotations

from alembic import context

from arena.store.models import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the store's migrations run through arena.store.migrate, on a connection")

context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True,
                  compare_type=True)
with context.begin_transaction():
    context.run_migrations()
