"""Fixtures shared by the test modules: a database of each kind, a real server, a real browser.

Per test, on both kinds of database: a new SQLite file or PostgreSQL database (`database`);
every PostgreSQL database a test made is dropped when the session ends. Module-scoped: one
`dicepoker serve` process (bots instant) on its own SQLite file, one HTTP client kept open
against it, and one Debian chromium per test module. Per test: two server processes on a fresh
PostgreSQL database with Redis (`server_pair`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from browser_support import CHROMIUM, CHROMIUM_ARGS, Api
from live_server import LiveServer, drop_made_databases, fresh_postgres_database, redis_url


@pytest.fixture(scope="session", autouse=True)
def _databases_dropped() -> Iterator[None]:
    """Every PostgreSQL database the session's tests made is dropped at its end."""
    yield
    drop_made_databases()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The database a test's store or server uses, each test on both kinds: a new SQLite file
    (not made yet) in the test's folder, or a new database on the test PostgreSQL."""
    if request.param == "sqlite":
        yield str(tmp_path / "games.db")
    else:
        yield fresh_postgres_database()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(str(tmp_path_factory.mktemp("db") / "games.db"), bot_delay=0.0).start()
    yield live
    live.stop()


@pytest.fixture
def server_pair() -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two server processes on one fresh PostgreSQL database, sharing games through Redis (bots
    and clocks taken over 1.5 s after their process dies)."""
    database = fresh_postgres_database()
    first = LiveServer(database, redis=redis_url(), lease_ms=1500).start()
    try:
        second = LiveServer(database, redis=redis_url(), lease_ms=1500).start()
    except BaseException:
        first.stop()
        raise
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


@pytest.fixture(scope="module")
def api(server: LiveServer) -> Iterator[Api]:
    client = Api(server)
    yield client
    client.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
