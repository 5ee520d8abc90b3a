"""Migration 0007: the results whose accuracy is not known yet are read through a partial index
of those rows alone (the accuracy sweep at a server's start and each finished game's own look),
on SQLite and PostgreSQL; the migration goes down and up again."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import command
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from dicepoker.server.community.results import unknown_query
from dicepoker.server.storage.store import alembic_config
from dicepoker.server.storage.store import database_url as async_url


def _plan(url: str, game_id: str | None) -> str:
    """How the database reads `unknown_query` (PostgreSQL told to avoid whole-table reads
    where it has another way: on a table this small it would read it all anyway)."""

    async def go() -> str:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as connection:
                statement = unknown_query(game_id, 10).compile(
                    connection.engine, compile_kwargs={"literal_binds": True}
                )
                if engine.dialect.name == "sqlite":
                    rows = await connection.execute(text(f"EXPLAIN QUERY PLAN {statement}"))
                    return "\n".join(str(row[-1]) for row in rows)
                await connection.execute(text("SET enable_seqscan = off"))
                rows = await connection.execute(text(f"EXPLAIN {statement}"))
                return "\n".join(str(row[0]) for row in rows)
        finally:
            await engine.dispose()

    return asyncio.run(go())


def _indexes(url: str) -> list[Any]:
    async def go() -> list[Any]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as connection:
                if engine.dialect.name == "sqlite":
                    query = "SELECT name FROM sqlite_master WHERE tbl_name = 'game_results'"
                else:
                    query = "SELECT indexname FROM pg_indexes WHERE tablename = 'game_results'"
                return [row[0] for row in await connection.execute(text(query))]
        finally:
            await engine.dispose()

    return asyncio.run(go())


def test_unknown_accuracies_are_read_through_their_own_index(database: str) -> None:
    url = async_url(database)
    command.upgrade(alembic_config(url), "head")
    assert "ix_game_results_unknown" in _indexes(url)
    for game_id in (None, "g1"):
        assert "ix_game_results_unknown" in _plan(url, game_id)
    command.downgrade(alembic_config(url), "0006")
    assert "ix_game_results_unknown" not in _indexes(url)
    assert "ix_game_results_unknown" not in _plan(url, None)
    command.upgrade(alembic_config(url), "head")
    assert "ix_game_results_unknown" in _indexes(url)
