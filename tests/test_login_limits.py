"""The per-name budget of wrong passwords holds under concurrency, and the owner's known device
gets through it (community/devices.py): on SQLite (one process's buckets) and on PostgreSQL with
Redis (two apps sharing one budget). Password checks are counted where argon2 runs
(`Accounts._verify`), never timed."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicepoker.server.community.accounts import COOKIE
from dicepoker.server.community.devices import DEVICE_COOKIE, DEVICE_FAILURES
from dicepoker.server.services import Services
from dicepoker.server.storage.models import AccountDeviceRow
from dicepoker.site import Settings, create_app
from live_server import fresh_postgres_database, redis_url

ORIGIN = {"origin": "http://testserver"}
PASSWORD = "correct horse"
WRONG = "not the password"
NAME_BURST = 5


def _settings(database: str, redis: str | None) -> Settings:
    """The name's budget of the defaults' size, refilled too slowly to matter within a test;
    the per-address limit off (an attacker has many addresses)."""
    return Settings(
        database=database,
        redis_url=redis,
        bot_workers=0,
        bot_delay=0,
        win_probability=False,
        http_rate=0,
        login_rate=0,
        login_name_rate=0.0001,
        login_name_burst=NAME_BURST,
    )


def _unique(prefix: str) -> str:
    """A name no earlier run used: the shared budgets outlive a test in Redis."""
    return f"{prefix}{uuid.uuid4().hex[:10]}"


class Counted:
    """The app's password checks, counted where argon2 runs."""

    def __init__(self, services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        verify = services.accounts._verify

        async def counting(stored: str, password: str) -> bool:
            self.calls += 1
            return await verify(stored, password)

        monkeypatch.setattr(services.accounts, "_verify", counting)


def _services(client: TestClient) -> Services:
    app: Any = client.app
    found: Services = app.state.services
    return found


@pytest.fixture(params=["sqlite", "postgresql+redis"])
def apps(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[TestClient]]:
    """One app on SQLite; or two apps (as two server processes) on one PostgreSQL database and
    one Redis."""
    with ExitStack() as stack:
        if request.param == "sqlite":
            settings = [_settings(str(tmp_path / "games.db"), None)]
        else:
            database = fresh_postgres_database()
            settings = [_settings(database, redis_url()) for _ in range(2)]
        yield [stack.enter_context(TestClient(create_app(one), headers=ORIGIN)) for one in settings]


def _guesses(client: TestClient, name: str, count: int, address: str) -> list[int]:
    """`count` wrong guesses at once from `address`, on the app's own event loop: their
    statuses."""
    assert client.portal is not None
    transport = httpx.ASGITransport(app=client.app, client=(address, 4000))

    async def guess_all() -> list[int]:
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", headers=ORIGIN
        ) as guesser:
            answers = await asyncio.gather(
                *(
                    guesser.post("/api/session", json={"name": name, "password": WRONG})
                    for _ in range(count)
                )
            )
        return [answer.status_code for answer in answers]

    return client.portal.call(guess_all)


def _browser(client: TestClient, **cookies: str) -> None:
    """The client as a browser holding only `cookies` (where the app's own would be kept, so
    that the app's answers replace them)."""
    client.cookies.clear()
    for name, value in cookies.items():
        client.cookies.set(name, value, domain="testserver.local")


def _sign_up(client: TestClient, name: str) -> dict[str, str]:
    """A new account's cookies (the client keeps none)."""
    client.cookies.clear()
    answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    cookies = dict(client.cookies)
    client.cookies.clear()
    return cookies


def test_concurrent_wrong_guesses_check_no_more_passwords_than_the_budget(
    apps: list[TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = _unique("V")
    _sign_up(apps[0], victim)
    counted = [Counted(_services(app), monkeypatch) for app in apps]
    # 100 guesses from 10 addresses, all at once, split between the apps.
    with ThreadPoolExecutor(10) as pool:
        batches = [
            pool.submit(_guesses, apps[n % len(apps)], victim, 10, f"10.0.0.{n}") for n in range(10)
        ]
        statuses = [status for batch in batches for status in batch.result()]
    checked = sum(count.calls for count in counted)
    assert checked <= NAME_BURST, checked
    assert statuses.count(401) == checked and statuses.count(429) == 100 - checked
    # The name stays locked for the right password too, from a browser the account never used.
    locked = apps[-1].post("/api/session", json={"name": victim, "password": PASSWORD})
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) >= 1
    assert sum(count.calls for count in counted) == checked  # refused before any check


def test_a_right_password_gives_its_token_back(apps: list[TestClient]) -> None:
    owner = _unique("R")
    _sign_up(apps[0], owner)
    for n in range(3 * NAME_BURST):  # from browsers that keep no cookie: strangers each time
        app = apps[n % len(apps)]
        app.cookies.clear()
        assert app.post("/api/session", json={"name": owner, "password": PASSWORD}).is_success


def test_the_owner_s_device_logs_in_while_a_stranger_s_guesses_lock_the_name(
    apps: list[TestClient],
) -> None:
    owner = _unique("O")
    _sign_up(apps[0], owner)
    first, last = apps[0], apps[-1]
    # The owner logs in on a browser, which becomes a device of the account.
    first.cookies.clear()
    assert first.post("/api/session", json={"name": owner, "password": PASSWORD}).is_success
    device = first.cookies.get(DEVICE_COOKIE)
    assert device
    first.cookies.clear()
    # An attacker keeps guessing: the name is locked.
    assert _guesses(last, owner, 20, "203.0.113.9").count(429) >= 20 - NAME_BURST
    # The owner's device gets through, again and again, from either app.
    for app in apps:
        _browser(app, **{DEVICE_COOKIE: device})
        answer = app.post("/api/session", json={"name": owner, "password": PASSWORD})
        assert answer.status_code == 200, answer.text
        assert app.cookies.get(DEVICE_COOKIE) == device  # the same device, its life renewed
        app.cookies.clear()
    # The name stays locked for strangers, and for the owner on a new browser.
    assert _guesses(last, owner, 5, "203.0.113.9") == [429] * 5
    stranger = last.post("/api/session", json={"name": owner, "password": PASSWORD})
    assert stranger.status_code == 429
    # A device of another account is a stranger's too.
    other = _sign_up(first, _unique("B"))
    _browser(first, **{DEVICE_COOKIE: other[DEVICE_COOKIE]})
    assert first.post("/api/session", json={"name": owner, "password": PASSWORD}).status_code == 429
    first.cookies.clear()


def test_a_device_that_keeps_failing_is_revoked_and_spends_the_name_s_budget(
    apps: list[TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = _unique("D")
    device = _sign_up(apps[0], owner)[DEVICE_COOKIE]
    counted = [Counted(_services(app), monkeypatch) for app in apps]
    client = apps[-1]
    _browser(client, **{DEVICE_COOKIE: device})
    for _ in range(DEVICE_FAILURES):  # the device's own budget, the name's left whole
        wrong = client.post("/api/session", json={"name": owner, "password": WRONG})
        assert wrong.status_code == 401
    # Spent: the device is revoked, and its guesses spend the name's budget like anyone's.
    statuses = [
        client.post("/api/session", json={"name": owner, "password": WRONG}).status_code
        for _ in range(NAME_BURST + 2)
    ]
    assert statuses == [401] * NAME_BURST + [429] * 2
    assert sum(count.calls for count in counted) == DEVICE_FAILURES + NAME_BURST
    right = client.post("/api/session", json={"name": owner, "password": PASSWORD})
    assert right.status_code == 429  # no longer a device: locked out with the strangers
    client.cookies.clear()


def test_changing_the_password_and_deleting_the_account_spend_the_same_budget(
    apps: list[TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = _unique("C")
    cookies = _sign_up(apps[0], owner)
    counted = [Counted(_services(app), monkeypatch) for app in apps]
    client = apps[-1]
    # A stolen session, without the device: its wrong passwords are limited like guesses.
    _browser(client, **{COOKIE: cookies[COOKIE]})
    change = {"password": WRONG, "new_password": "taken over!"}
    statuses = [client.post("/api/me/password", json=change).status_code for _ in range(7)]
    assert statuses == [401] * NAME_BURST + [429] * 2
    gone = client.request("DELETE", "/api/me", json={"password": PASSWORD})
    assert gone.status_code == 429
    assert sum(count.calls for count in counted) == NAME_BURST
    # The owner's device changes the password, then deletes the account, through the lockout.
    _browser(client, **cookies)
    mine = {"password": PASSWORD, "new_password": "another horse"}
    assert client.post("/api/me/password", json=mine).status_code == 204
    gone = client.request("DELETE", "/api/me", json={"password": "another horse"})
    assert gone.status_code == 204, gone.text
    client.cookies.clear()


def test_the_device_cookie_is_httponly_lax_secure_over_https_and_stored_hashed(
    tmp_path: Path,
) -> None:
    settings = _settings(str(tmp_path / "games.db"), None)
    secure = {"origin": "https://testserver"}
    with TestClient(create_app(settings), base_url="https://testserver", headers=secure) as app:
        answer = app.post("/api/accounts", json={"name": "Cookie_Jar", "password": PASSWORD})
        assert answer.status_code == 201
        sent = [v for v in answer.headers.get_list("set-cookie") if v.startswith(DEVICE_COOKIE)]
        assert len(sent) == 1
        attributes = {part.strip().split("=")[0].lower() for part in sent[0].split(";")}
        assert {"httponly", "secure", "max-age", "path"} <= attributes
        assert "samesite=lax" in sent[0].lower()
        token = app.cookies.get(DEVICE_COOKIE)
        assert token

        async def stored() -> list[str]:
            async with _services(app).store.sessions() as session:
                return list(await session.scalars(select(AccountDeviceRow.token_hash)))

        assert app.portal is not None
        assert app.portal.call(stored) == [hashlib.sha256(token.encode()).hexdigest()]
