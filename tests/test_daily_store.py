"""The daily challenge's storage, on SQLite and PostgreSQL: two server processes agree on the
day's seed and compute its par once, only one claim on a par is written (a dead process's is
taken over), and migration 0004 adds and removes the daily tables."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from sqlalchemy import inspect
from sqlalchemy.ext.asyncio import create_async_engine

from daily_support import (
    PRESET,
    START,
    Clock,
    app_client,
    clock_fixture,
    ok,
    play,
    same_keeps,
    services_of,
    start,
    wait_par,
)
from dicepoker.rules import variant_names
from dicepoker.server.storage.daily_store import DailyStore
from dicepoker.server.storage.store import Store, alembic_config, database_url
from live_server import LiveServer

clock = pytest.fixture(clock_fixture, name="clock")

# --- several processes --------------------------------------------------------------------------


def test_two_processes_agree_on_the_day_and_compute_the_par_once(
    database: str, clock: Clock
) -> None:
    with app_client(database, clock) as first, app_client(database, clock) as second:
        runs: list[str] = []
        for client in (first, second):
            daily = services_of(client).daily
            runner = daily.par_runner

            async def counted(
                variant: str, options: dict[str, Any], seed: str, *, _runner: Any = runner
            ) -> int:
                runs.append(variant)
                return int(await _runner(variant, options, seed))

            daily.par_runner = counted
        answers = [ok(client.get(f"/api/daily/{PRESET}")) for client in (first, second)]
        assert answers[0]["commitment"] == answers[1]["commitment"]
        created = [start(client, name) for client, name in ((first, "Ana"), (second, "Bea"))]
        records = [play(first, created[0], same_keeps), play(second, created[1], same_keeps)]
        assert records[0]["turns"] == records[1]["turns"]
        assert wait_par(first, PRESET) == wait_par(second, PRESET)
        assert runs == [PRESET]
        assert ok(second.get(f"/api/daily/{PRESET}"))["games"] == 2


def test_only_one_claim_on_a_par_is_written(database: str) -> None:
    async def scenario() -> None:
        stores = [Store(database) for _ in range(3)]
        await stores[0].migrate()
        try:
            days = [DailyStore(store) for store in stores]
            made = await asyncio.gather(
                *(
                    d.make_day(PRESET, START.date(), f"{n:064x}", f"{n:064x}")
                    for n, d in enumerate(days)
                )
            )
            assert len({day.id for day in made}) == 1 and len({day.seed for day in made}) == 1
            day = made[0]
            claims = await asyncio.gather(
                *(d.claim_par(day.id, START, timedelta(minutes=15)) for d in days)
            )
            assert sorted(claims) == [False, False, True]
            # A claim of a process that died is taken over once it is old enough.
            later = START + timedelta(minutes=16)
            assert (
                await days[1].claim_par(day.id, START + timedelta(minutes=5), timedelta(minutes=15))
                is False
            )
            assert await days[1].claim_par(day.id, later, timedelta(minutes=15)) is True
            await days[1].set_par(day.id, 250)
            assert (
                await days[2].claim_par(day.id, later + timedelta(hours=1), timedelta(0)) is False
            )
            found = await days[2].day(PRESET, START.date())
            assert found is not None and found.par == 250
        finally:
            for store in stores:
                await store.close()

    asyncio.run(scenario())


# --- the migration ------------------------------------------------------------------------------


def _tables(url: str) -> dict[str, set[str]]:
    async def read() -> dict[str, set[str]]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(
                    lambda sync: {
                        name: {column["name"] for column in inspect(sync).get_columns(name)}
                        for name in inspect(sync).get_table_names()
                    }
                )
        finally:
            await engine.dispose()

    return asyncio.run(read())


def test_migration_0004_adds_and_removes_the_daily_tables(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    url = database_url(str(path))
    command.upgrade(alembic_config(url), "0003")
    assert "daily" not in _tables(url) and "reveal_at" not in _tables(url)["games"]
    command.upgrade(alembic_config(url), "head")
    tables = _tables(url)
    assert {"seed", "commitment", "par", "par_claimed_at"} <= tables["daily"]
    assert {"game_id", "account_id", "name", "score"} <= tables["daily_games"]
    assert "reveal_at" in tables["games"]
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO daily (preset, day, seed, commitment, created_at) VALUES (?, ?, ?, ?, ?)",
            ("school", "2031-03-14", "0" * 64, "1" * 64, "2031-03-14 00:00:00"),
        )
        with pytest.raises(sqlite3.IntegrityError):
            connection.execute(
                "INSERT INTO daily (preset, day, seed, commitment, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                ("school", "2031-03-14", "2" * 64, "3" * 64, "2031-03-14 00:00:00"),
            )
    command.downgrade(alembic_config(url), "0003")
    tables = _tables(url)
    assert "daily" not in tables and "daily_games" not in tables and "accounts" in tables
    assert "reveal_at" not in tables["games"]
    command.upgrade(alembic_config(url), "head")
    assert json.dumps(sorted(_tables(url)))  # migrated again, readable


def test_two_server_processes_make_one_day_and_one_game_per_account(
    server_pair: tuple[LiveServer, LiveServer],
) -> None:
    """Real `dicepoker serve` processes on one PostgreSQL: asked at once, they make one day per
    preset; an account's two requests at once, one to each, start one game."""
    first, second = server_pair
    presets = variant_names()
    with ThreadPoolExecutor(8) as pool:
        answers = list(
            pool.map(
                lambda job: httpx.get(f"{job[0].url}/api/daily/{job[1]}", timeout=30).json(),
                [(server, preset) for preset in presets for server in (first, second)],
            )
        )
    for n, preset in enumerate(presets):
        one, two = answers[2 * n], answers[2 * n + 1]
        assert one["preset"] == two["preset"] == preset
        assert one["commitment"] == two["commitment"] and one["date"] == two["date"]
    signed = httpx.post(
        f"{first.url}/api/accounts",
        json={"name": "Both_sides", "password": "correct horse"},
        headers={"origin": first.url},
        timeout=30,
    )
    assert signed.status_code == 201, signed.text
    cookies = dict(signed.cookies)

    def start_on(server: LiveServer) -> httpx.Response:
        return httpx.post(
            f"{server.url}/api/daily/{PRESET}",
            cookies=cookies,
            headers={"origin": server.url},
            timeout=30,
        )

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(start_on, (first, second)))
    assert sorted(result.status_code for result in results) == [201, 409], [
        result.text for result in results
    ]
    made = next(result.json() for result in results if result.status_code == 201)
    refused = next(result.json() for result in results if result.status_code == 409)
    assert refused["error"] == {**refused["error"], "code": "daily_played", "game": made["id"]}
    for server in (first, second):
        assert httpx.get(f"{server.url}/api/daily/{PRESET}", timeout=30).json()["games"] == 1
