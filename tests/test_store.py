"""The event log's one rule, on SQLite and PostgreSQL: event n + 1 is committed once, by the first
writer that saw the game at n; appends of many games arriving together commit as one batch."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import event

from dicepoker.server.storage.batch_sql import SQLITE_BATCH, advance_games
from dicepoker.server.storage.store import (
    ConflictError,
    Store,
    StoredEvent,
    StoredGame,
    create_database,
    database_url,
    drop_database,
)
from live_server import fresh_postgres_database


def _event(seq: int, action: str = "roll") -> StoredEvent:
    return StoredEvent(seq, 0, action, [1, 2, 3, 4, 5], False)


async def _scenario(database: str) -> None:
    store = Store(database)
    await store.migrate()
    try:
        ids = [f"game{n}" for n in range(5)]
        for game_id in ids:
            game = StoredGame(id=game_id, variant="school", options={}, seats=[], status="running")
            await store.create_game(game)
        # Five games at once, one batch; plus a second writer of game0's event 1.
        results = await asyncio.gather(
            *(store.append(game_id, 0, _event(1), "running") for game_id in ids),
            store.append("game0", 0, _event(1, "keep 0"), "running"),
            return_exceptions=True,
        )
        assert results[:5] == [None] * 5
        assert isinstance(results[5], ConflictError)
        assert [e.action for e in await store.events("game0")] == ["roll"]
        # A writer that read an old seq is refused; the right one goes on.
        with pytest.raises(ConflictError):
            await store.append("game1", 0, _event(1), "running")
        await store.append("game1", 1, _event(2, "score chance"), "finished")
        stored = await store.game("game1")
        assert stored is not None
        assert (stored.seq, stored.status) == (2, "finished")
        assert isinstance(stored.updated_at, datetime) and isinstance(stored.created_at, datetime)
        assert stored.updated_at >= stored.created_at
        assert [e.seq for e in await store.events("game1")] == [1, 2]
        # An unknown game is a conflict too, never a silent success.
        with pytest.raises(ConflictError):
            await store.append("nope", 0, _event(1), "running")
        # Many games' seqs in one read (more than one query's worth), the unknown left out.
        many = ["nope", *ids, *(f"missing{n}" for n in range(1200))]
        assert await store.seqs(many) == {
            "game0": 1,
            "game1": 2,
            "game2": 1,
            "game3": 1,
            "game4": 1,
        }
        assert await store.seqs([]) == {}
    finally:
        await store.close()


def test_each_event_is_committed_once(database: str) -> None:
    asyncio.run(_scenario(database))


def test_more_games_at_once_than_one_sqlite_batch_takes(tmp_path: Path) -> None:
    """SQLite refuses a compound SELECT of over 500 terms: the group commit of more games than
    that at once is split into batches of at most SQLITE_BATCH, each game's events in order; and
    the batches of any size share a few statements (powers of two), so that SQLAlchemy does not
    keep a compiled statement for every size."""

    async def scenario() -> None:
        store = Store(str(tmp_path / "store.db"))
        await store.migrate()
        try:
            ids = [f"game{n}" for n in range(SQLITE_BATCH + 300)]
            for game_id in ids:
                game = StoredGame(
                    id=game_id, variant="school", options={}, seats=[], status="running"
                )
                await store.create_game(game)
            await asyncio.gather(
                *(store.append(game_id, 0, _event(1), "running") for game_id in ids),
                *(store.append(game_id, 1, _event(2), "running") for game_id in ids),
            )
            for game_id in ids:
                assert [e.seq for e in await store.events(game_id)] == [1, 2]
            advance_games.cache_clear()
            start = 0
            for count in range(1, 17):  # batches of 1 to 16 games: 5 statements (1 to 16 rows)
                batch = ids[start : start + count]
                start += count
                await asyncio.gather(
                    *(store.append(game_id, 2, _event(3), "running") for game_id in batch)
                )
            assert advance_games.cache_info().currsize == 5
            for game_id in ids:
                expected = [1, 2, 3] if game_id in ids[:start] else [1, 2]
                assert [e.seq for e in await store.events(game_id)] == expected
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_connection_that_died_while_idle_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL connections are pinged only when they sat unused (not at every checkout): one
    that died meanwhile (a database restart, a proxy's timeout) is replaced, and the store's
    next operation works."""
    import dicepoker.server.storage.store as store_module

    database = fresh_postgres_database()

    async def scenario() -> None:
        store, killer = Store(database), Store(database)
        await store.migrate()
        try:
            await store.create_game(
                StoredGame(id="g", variant="school", options={}, seats=[], status="open")
            )
            async with store.engine.connect() as connection:
                pid = (await connection.exec_driver_sql("SELECT pg_backend_pid()")).scalar()
            # The store's only pooled connection is killed by another client while it is idle.
            async with killer.engine.connect() as connection:
                result = await connection.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
                assert result.scalar() is True
            monkeypatch.setattr(store_module, "IDLE_PING_SECONDS", 0.0)
            stored = await store.game("g")
            assert stored is not None and stored.status == "open"
            async with store.engine.connect() as connection:
                fresh = (await connection.exec_driver_sql("SELECT pg_backend_pid()")).scalar()
            assert fresh != pid
        finally:
            await store.close()
            await killer.close()

    asyncio.run(scenario())


def test_the_pool_hands_out_the_connection_used_last() -> None:
    """PostgreSQL connections are reused last in, first out: after three were open at once,
    one operation after another runs on the one given back last, and the other backends sleep
    (in turn, every backend of the pool would wake for its share of the batches)."""
    database = fresh_postgres_database()

    async def pid_of(store: Store) -> int:
        async with store.engine.connect() as connection:
            return int((await connection.exec_driver_sql("SELECT pg_backend_pid()")).scalar_one())

    async def scenario() -> None:
        store = Store(database)
        await store.migrate()
        try:
            held = [await store.engine.connect() for _ in range(3)]
            pids = [
                int((await c.exec_driver_sql("SELECT pg_backend_pid()")).scalar_one()) for c in held
            ]
            assert len(set(pids)) == 3
            for connection in held:  # given back in the order they were opened
                await connection.close()
            await store.create_game(
                StoredGame(id="g", variant="school", options={}, seats=[], status="running")
            )
            await store.append("g", 0, _event(1), "running")
            assert [await pid_of(store) for _ in range(4)] == [pids[-1]] * 4
        finally:
            await store.close()

    asyncio.run(scenario())


def test_the_writer_keeps_one_connection_for_a_run_of_batches() -> None:
    """On PostgreSQL the group commit's writer takes one connection for its whole run of
    batches: a checkout from the pool and its return for each batch cost the server as much CPU
    as the batch's statement. A batch that fails gives its connection up (it may be what failed),
    and the next batch commits on a fresh one."""
    database = fresh_postgres_database()

    async def scenario() -> None:
        store = Store(database)
        await store.migrate()
        checkouts: list[int] = []
        invalidated: list[int] = []
        sync_engine = store.commit_engine.sync_engine
        event.listen(sync_engine, "checkout", lambda *_: checkouts.append(1))
        event.listen(sync_engine, "invalidate", lambda *_: invalidated.append(1))
        commits: list[float] = []
        store.on_commit = commits.append
        try:
            ids = ["a", "b", "c", "d"]
            for game_id in ids:
                await store.create_game(
                    StoredGame(id=game_id, variant="school", options={}, seats=[], status="running")
                )
            checkouts.clear()
            # A game's next event waits for the batch before: five batches, one after another.
            await asyncio.gather(
                *(store.append(g, seq, _event(seq + 1), "running") for seq in range(5) for g in ids)
            )
            assert len(commits) == 5 and len(checkouts) == 1 and not invalidated
            # ... where PostgreSQL planned its statement once, not for each batch.
            async with store.commit_engine.connect() as connection:
                plans = await connection.exec_driver_sql(
                    "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                    " WHERE statement LIKE '%WITH batch AS%'"
                    " AND statement NOT LIKE '%pg_prepared_statements%'"  # (this one)
                )
                assert [tuple(row) for row in plans] == [(5, 0)]
            for game_id in ids:
                assert [e.seq for e in await store.events(game_id)] == [1, 2, 3, 4, 5]

            # A status too long for its column fails the whole first batch; game b's second try
            # waits for the next batch, which commits on a fresh connection.
            checkouts.clear()
            results = await asyncio.gather(
                store.append("a", 5, _event(6), "x" * 40),
                store.append("b", 5, _event(6), "running"),
                store.append("b", 5, _event(6), "running"),
                return_exceptions=True,
            )
            assert isinstance(results[0], Exception) and isinstance(results[1], Exception)
            assert results[2] is None
            assert len(checkouts) == 2 and len(invalidated) == 1
            assert [e.seq for e in await store.events("a")] == [1, 2, 3, 4, 5]
            assert [e.seq for e in await store.events("b")] == [1, 2, 3, 4, 5, 6]
        finally:
            await store.close()

    asyncio.run(scenario())


_MIGRATE = """
import asyncio, sys
from dicepoker.server.storage.store import Store

async def main(url: str) -> None:
    store = Store(url)
    try:
        await store.migrate()
    finally:
        await store.close()

asyncio.run(main(sys.argv[1]))
"""


def test_server_processes_starting_together_on_a_new_database_all_migrate_it() -> None:
    """`dicepoker serve --workers N` migrates in each server process at once; on a new
    PostgreSQL database none of them may fail creating tables the other is creating."""
    for _ in range(3):  # the race, where there is one, shows within a few tries
        url = fresh_postgres_database()
        runs = [
            subprocess.Popen(
                [sys.executable, "-c", _MIGRATE, url],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        errors = [run.communicate(timeout=120)[1] for run in runs]
        assert [run.returncode for run in runs] == [0, 0, 0], [error[-500:] for error in errors]


def test_a_made_database_is_dropped_with_its_open_connections() -> None:
    """What the tests (tests/conftest.py) and the load benchmark do with each PostgreSQL
    database they made, since the test PostgreSQL lives on between runs: it is dropped, even
    while a store still holds connections to it."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    from live_server import postgres_url

    name = f"t_drop_{uuid.uuid4().hex[:8]}"

    async def names() -> set[str]:
        engine = create_async_engine(database_url(postgres_url()))
        try:
            async with engine.connect() as connection:
                rows = await connection.execute(text("SELECT datname FROM pg_database"))
                return {row[0] for row in rows}
        finally:
            await engine.dispose()

    async def scenario() -> None:
        store = Store(await create_database(postgres_url(), name))
        await store.migrate()
        await store.create_game(
            StoredGame(id="g", variant="school", options={}, seats=[], status="running")
        )
        assert name in await names()
        await drop_database(postgres_url(), name)
        assert name not in await names()
        await store.close()
        await drop_database(postgres_url(), name)  # gone already: nothing to do

    asyncio.run(scenario())
