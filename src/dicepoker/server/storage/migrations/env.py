"""Alembic environment: runs the migrations on the async engine the server uses."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from dicepoker.server.storage.models import Base

config = context.config
target_metadata = Base.metadata

#: The key of the PostgreSQL advisory lock that migrations hold: the server processes of
#: `dicepoker serve --workers N` all migrate as they start, and on a new database two of them
#: creating the same tables at once would fail one of them (and uvicorn then stops them all).
MIGRATION_LOCK = 0x646963_65706B  # "dicepk"


def run_migrations_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Held to the end of the transaction; Alembic reads the schema's version after it
            # is taken, so a process that waited finds the migrations done and does nothing.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        context.run_migrations()


async def run_migrations_online() -> None:
    engine = create_async_engine(str(config.get_main_option("sqlalchemy.url")))
    async with engine.connect() as connection:
        await connection.run_sync(_run)
        await connection.commit()
    await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())
