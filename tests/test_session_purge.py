"""Expired login sessions are deleted without anyone remembering to: an account's own when it
opens a session, everyone's a batch at a time at most once an hour per process, and all at once
by `dicepoker admin purge-sessions`. Live sessions stay. On SQLite and on PostgreSQL, with the
accounts' clock moved by the test (a session lasts `SESSION_DAYS`) and the rows read back from
the database."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import pytest
from argon2 import PasswordHasher
from sqlalchemy import select
from typer.testing import CliRunner

import dicepoker.server.community.accounts as accounts_module
from dicepoker.cli import app
from dicepoker.server.community.accounts import PURGE_EVERY, SESSION_DAYS, Accounts, hash_session
from dicepoker.server.storage.models import SessionRow
from dicepoker.server.storage.store import Store
from live_server import fresh_postgres_database

T = TypeVar("T")
PASSWORD = "correct horse"
#: Cheap hashes: the tests make accounts, they do not measure hashing.
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
START = datetime(2031, 3, 14, 15, 30, tzinfo=UTC)
LIFETIME = timedelta(days=SESSION_DAYS)


class Clock:
    """The accounts' clock, moved by the test instead of waiting."""

    def __init__(self) -> None:
        self.at = START

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: a new SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        path = tmp_path / "games.db"
        path.touch()  # an empty file is an empty SQLite database (what the admin command needs)
        return str(path)
    return fresh_postgres_database()


def on(database: str, work: Callable[[Store, Accounts, Clock], Awaitable[T]]) -> T:
    """Run `work` on the migrated database with accounts on a clock of the test's."""

    async def run() -> T:
        store = Store(database)
        try:
            await store.migrate()
            clock = Clock()
            return await work(store, Accounts(store, hasher=FAST, now=clock), clock)
        finally:
            await store.close()

    return asyncio.run(run())


async def stored(store: Store, *tokens: str) -> list[bool]:
    """Whether each token's session is still a row of the database."""
    async with store.sessions() as session:
        rows = set(await session.scalars(select(SessionRow.token_hash)))
    return [hash_session(token) in rows for token in tokens]


async def log_in(accounts: Accounts, name: str) -> str:
    return (await accounts.login(name, PASSWORD))[1]


def test_logging_in_deletes_the_account_s_expired_sessions(database: str) -> None:
    async def work(store: Store, accounts: Accounts, clock: Clock) -> None:
        for name in ("ana", "bea", "cid"):
            await accounts.create(name, PASSWORD)
        old = await log_in(accounts, "ana")
        others = await log_in(accounts, "bea")
        clock.at += timedelta(days=2)
        recent = await log_in(accounts, "ana")
        clock.at = START + LIFETIME - PURGE_EVERY / 2
        await log_in(accounts, "cid")  # a sweep, with nothing expired yet
        clock.at = START + LIFETIME  # `old` and `others` expire now, `recent` two days later
        assert await stored(store, old, others, recent) == [True, True, True]

        again = await log_in(accounts, "ana")

        assert await stored(store, old, recent, again) == [False, True, True]
        assert await stored(store, others) == [True]  # not ana's, and no sweep is due yet
        assert await accounts.by_session(recent) is not None
        assert await accounts.by_session(others) is None

    on(database, work)


def test_a_session_opened_after_the_interval_sweeps_every_account(database: str) -> None:
    async def work(store: Store, accounts: Accounts, clock: Clock) -> None:
        for name in ("ana", "bea", "cid"):
            await accounts.create(name, PASSWORD)
        expiring = [await log_in(accounts, "ana"), await log_in(accounts, "bea")]
        clock.at += timedelta(days=1)
        live = await log_in(accounts, "bea")
        clock.at = START + LIFETIME - PURGE_EVERY / 2
        first = await log_in(accounts, "cid")  # a sweep, with nothing expired yet
        clock.at = START + LIFETIME
        second = await log_in(accounts, "cid")
        assert await stored(store, *expiring) == [True, True]  # the next sweep is not due

        clock.at = START + LIFETIME + PURGE_EVERY / 2
        third = await log_in(accounts, "cid")

        assert await stored(store, *expiring) == [False, False]
        assert await stored(store, live, first, second, third) == [True, True, True, True]
        assert await accounts.by_session(live) is not None

    on(database, work)


def test_a_backlog_goes_a_batch_at_each_next_session(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(accounts_module, "PURGE_BATCH", 2)

    async def work(store: Store, accounts: Accounts, clock: Clock) -> None:
        await accounts.create("ana", PASSWORD)
        await accounts.create("bea", PASSWORD)
        clock.at = START - LIFETIME  # five sessions of bea's, all expired at START
        backlog = [await log_in(accounts, "bea") for _ in range(5)]
        clock.at = START

        await log_in(accounts, "ana")
        assert sum(await stored(store, *backlog)) == 3
        await log_in(accounts, "ana")  # the batch was full: the next session sweeps again
        assert sum(await stored(store, *backlog)) == 1
        await log_in(accounts, "ana")  # the last one: a batch not full
        assert sum(await stored(store, *backlog)) == 0

        clock.at = START - LIFETIME  # one more of bea's, expired at START
        late = await log_in(accounts, "bea")
        clock.at = START + PURGE_EVERY / 2
        await log_in(accounts, "ana")
        assert await stored(store, late) == [True]  # no sweep for PURGE_EVERY after that one
        clock.at = START + PURGE_EVERY
        await log_in(accounts, "ana")
        assert await stored(store, late) == [False]

    on(database, work)


def test_admin_purge_sessions_deletes_every_expired_session(database: str) -> None:
    async def make(store: Store, accounts: Accounts, clock: Clock) -> tuple[list[str], str]:
        await accounts.create("ana", PASSWORD)
        clock.at = datetime.now(UTC)
        live = await log_in(accounts, "ana")
        clock.at -= LIFETIME + timedelta(minutes=1)  # before this sweep: no sweep is due
        expired = [await log_in(accounts, "ana") for _ in range(3)]
        return expired, live

    expired, live = on(database, make)

    done = CliRunner().invoke(app, ["admin", "purge-sessions", "--db", database])
    assert done.exit_code == 0, done.output
    assert done.output.strip() == "deleted 3 expired session(s)"

    async def look(store: Store, _accounts: Accounts, _clock: Clock) -> list[bool]:
        return await stored(store, *expired, live)

    assert on(database, look) == [False, False, False, True]
    again = CliRunner().invoke(app, ["admin", "purge-sessions", "--db", database])
    assert again.exit_code == 0, again.output
    assert again.output.strip() == "deleted 0 expired session(s)"
