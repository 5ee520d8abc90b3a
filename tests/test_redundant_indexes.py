"""Migration 0008, on SQLite and PostgreSQL: the events keep one index for reading a game's
events, the unique one on `(game_id, seq)` (read through it in order; they go with their game by
the foreign key's cascade), and the games read by status go through the index on `(status,
human_at)`; the migration goes down and up again."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import command
from sqlalchemy import Select, select, text
from sqlalchemy.ext.asyncio import create_async_engine

from dicepoker.master.store import StoredEvent, StoredGame
from dicepoker.server.storage.models import EventRow, GameRow
from dicepoker.server.storage.store import Store, alembic_config
from dicepoker.server.storage.store import database_url as async_url


def _ask(url: str, query: str) -> list[Any]:
    async def go() -> list[Any]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as connection:
                if engine.dialect.name == "postgresql":  # (a small table is read whole else)
                    await connection.execute(text("SET enable_seqscan = off"))
                return list(await connection.execute(text(query)))
        finally:
            await engine.dispose()

    return asyncio.run(go())


def _indexes(url: str, table: str) -> list[str]:
    if url.startswith("sqlite"):
        query = f"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '{table}'"
    else:
        query = f"SELECT indexname FROM pg_indexes WHERE tablename = '{table}'"
    return sorted(row[0] for row in _ask(url, query))


def _plan(url: str, query: Select[Any]) -> str:
    """How the database reads `query`."""
    engine = create_async_engine(url)
    statement = str(query.compile(engine, compile_kwargs={"literal_binds": True}))
    asyncio.run(engine.dispose())
    explain = "EXPLAIN QUERY PLAN" if url.startswith("sqlite") else "EXPLAIN"
    return "\n".join(
        str(row[-1] if url.startswith("sqlite") else row[0])
        for row in _ask(url, f"{explain} {statement}")
    )


def test_a_games_events_are_read_and_deleted_through_the_one_index(database: str) -> None:
    url = async_url(database)
    command.upgrade(alembic_config(url), "head")
    indexes = _indexes(url, "events")
    assert "ix_events_game_id" not in indexes
    unique = "uq_events_game_seq" if url.startswith("postgresql") else "sqlite_autoindex_events_1"
    assert unique in indexes
    events = select(EventRow).where(EventRow.game_id == "g1", EventRow.seq > 0)
    plan = _plan(url, events.order_by(EventRow.seq))
    assert unique in plan and "ix_events_game_id" not in plan
    assert "TEMP B-TREE" not in plan and "Sort" not in plan  # in order from the index
    assert "ix_games_status" not in _indexes(url, "games")
    for status in (GameRow.status == "running", GameRow.status.in_(["open", "running"])):
        assert "ix_games_status_human_at" in _plan(url, select(GameRow.id).where(status))

    async def play() -> tuple[list[StoredEvent], list[StoredEvent], bool]:
        store = Store(url)
        try:
            await store.create_game(
                StoredGame("g1", "school", {}, [{"kind": "human", "name": "A"}], "running")
            )
            for seq in (1, 2, 3):
                event = StoredEvent(seq, 0, "roll", [1, 2, 3, 4, 5], False)
                await store.append("g1", seq - 1, event, "running", person=True)
            read = await store.events("g1")
            after = await store.events("g1", after=1)
            deleted = await store.delete_game("g1")
            return read, after, deleted
        finally:
            await store.close()

    read, after, deleted = asyncio.run(play())
    assert [event.seq for event in read] == [1, 2, 3]
    assert [event.seq for event in after] == [2, 3]
    assert deleted
    assert _ask(url, "SELECT count(*) FROM events")[0][0] == 0  # gone with their game

    command.downgrade(alembic_config(url), "0007")
    assert "ix_events_game_id" in _indexes(url, "events")
    assert "ix_games_status" in _indexes(url, "games")
    command.upgrade(alembic_config(url), "head")
    assert "ix_events_game_id" not in _indexes(url, "events")
    assert "ix_games_status" not in _indexes(url, "games")


def test_the_models_declare_the_indexes_the_migrations_make(tmp_path: Any) -> None:
    """The tables' indexes in the models (`server/storage/models.py`) are those the migrations make:
    nothing to add or drop in either direction (Alembic's comparison, indexes only)."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine

    from dicepoker.server.storage.models import Base

    url = async_url(str(tmp_path / "games.db"))
    command.upgrade(alembic_config(url), "head")
    engine = create_engine(url.replace("+aiosqlite", ""))
    try:
        with engine.connect() as connection:
            diffs = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    finally:
        engine.dispose()
    indexes = [diff for diff in diffs if diff[0] in ("add_index", "remove_index")]
    assert not indexes, indexes
