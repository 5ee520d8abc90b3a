"""The Origin check (server/http/origin.py) reads the Cookie header as the session lookup does:
whatever other cookies stand before the session's, a request from another site's page that
carries a session is refused, and one that carries none is served (anonymous play, scripts)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from dicepoker.server.community.accounts import COOKIE
from dicepoker.site import Settings, create_app

OURS = {"origin": "http://testserver"}
THEIRS = {"origin": "https://evil.example"}
PASSWORD = "correct horse"

#: Cookie headers a browser may send, the session's cookie behind other cookies that a strict
#: parser gives up on: a quote inside a value (the review's case), a JSON consent cookie, the plain
#: cookie, a bare chunk with no `=`, and a quote that never closes.
SHAPES = (
    'pref=a"b; {cookie}',
    'consent={{"ads":false,"stats":true}}; {cookie}',
    "{cookie}",
    "remember; {cookie}",
    'theme="dark; {cookie}',
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = str(Path(tmp_path_factory.mktemp("origin_cookies")) / "games.db")
    settings = Settings(
        database=database,
        bot_workers=0,
        bot_delay=0,
        win_probability=False,
        http_rate=0,
        login_rate=0,
        login_name_rate=0,
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _session(client: TestClient, name: str) -> str:
    """A new account's session token (the client keeps no cookie afterwards)."""
    client.cookies.clear()
    answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD}, headers=OURS)
    assert answer.status_code == 201, answer.text
    token = str(client.cookies.get(COOKIE) or "")
    assert token
    client.cookies.clear()
    return token


def _code(response: httpx.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code


@pytest.mark.parametrize("shape", SHAPES)
def test_a_session_from_another_site_is_refused_whatever_stands_before_it(
    client: TestClient, shape: str
) -> None:
    token = _session(client, f"Shape{SHAPES.index(shape)}")
    cookie = {"cookie": shape.format(cookie=f"{COOKIE}={token}")}
    for headers in (THEIRS, {"origin": "null"}, {}):  # another site, a sandbox, no origin said
        started = client.post("/api/daily/school", headers={**cookie, **headers})
        assert started.status_code == 403 and _code(started) == "bad_origin", (shape, headers)
        logged_out = client.delete("/api/session", headers={**cookie, **headers})
        assert logged_out.status_code == 403 and _code(logged_out) == "bad_origin"
    # Nothing happened: the session is alive and its account has no daily game today.
    me = client.get("/api/me", headers={"cookie": f"{COOKIE}={token}"})
    assert me.status_code == 200, me.text
    today = client.get("/api/daily/school", headers={"cookie": f"{COOKIE}={token}"})
    assert today.json()["mine"] is None
    # From our own page the same header acts for the session: the lookup finds it behind the
    # other cookies, which is why the check must see it there too.
    started = client.post("/api/daily/school", headers={**cookie, **OURS})
    assert started.status_code == 201, started.text
    assert started.json()["ranked"] is True
    again = client.post("/api/daily/school", headers={**cookie, **OURS})
    assert again.status_code == 409 and _code(again) == "daily_played"
    logged_out = client.delete("/api/session", headers={**cookie, **OURS})
    assert logged_out.status_code == 204
    assert client.get("/api/me", headers={"cookie": f"{COOKIE}={token}"}).status_code == 401


@pytest.mark.parametrize("cookie", [None, 'pref=a"b', "consent={}; remember"])
def test_a_request_without_a_session_is_served_from_anywhere(
    client: TestClient, cookie: str | None
) -> None:
    """The API's scripts and other sites' pages play anonymously (docs/api.md): no session, no
    one to act for."""
    client.cookies.clear()
    headers = {**THEIRS, **({"cookie": cookie} if cookie else {})}
    created = client.post(
        "/api/games",
        json={"variant": "yahtzee", "seats": [{"kind": "human", "name": "Anon"}]},
        headers=headers,
    )
    assert created.status_code == 201, created.text
