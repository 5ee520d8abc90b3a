"""Accounts over the API, on SQLite and on PostgreSQL: sign up, log in and out, who am I, change
the password, delete the account; every bad input gets its clear error and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from dicepoker.server.community.accounts import COOKIE, DELETED_NAME
from dicepoker.server.settings import Settings
from dicepoker.site import create_app
from live_server import fresh_postgres_database

ORIGIN = {"origin": "http://testserver"}
PASSWORD = "correct horse"


def _settings(database: str, **limits: float) -> Settings:
    values: dict[str, float] = {
        "login_rate": 0,
        "login_name_rate": 0,
        "http_rate": 0,
        **limits,
    }
    return Settings(database=database, bot_delay=0, bot_workers=0, **values)  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "postgresql"], scope="module")
def database(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    if request.param == "sqlite":
        return str(tmp_path_factory.mktemp("accounts") / "accounts.db")
    return fresh_postgres_database()


@pytest.fixture(scope="module")
def client(database: str) -> Iterator[TestClient]:
    # A browser sends its page's Origin with every POST and DELETE; so does this client.
    with TestClient(create_app(_settings(database)), headers=ORIGIN) as test_client:
        yield test_client


def _sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, object]:
    client.cookies.clear()
    response = client.post("/api/accounts", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    body: dict[str, object] = response.json()
    return body


def _code(response: object) -> str:
    code: str = response.json()["error"]["code"]  # type: ignore[attr-defined]
    return code


def test_sign_up_logs_in_and_me_says_who(client: TestClient) -> None:
    body = _sign_up(client, "Ana_1")
    assert body["name"] == "Ana_1"
    cookie = client.cookies.get(COOKIE)
    assert cookie and len(cookie) >= 40
    me = client.get("/api/me")
    assert me.status_code == 200 and me.json()["name"] == "Ana_1"


def test_the_session_cookie_is_httponly_and_lax(client: TestClient) -> None:
    client.cookies.clear()
    response = client.post("/api/accounts", json={"name": "Cookie", "password": PASSWORD})
    header = response.headers["set-cookie"]
    assert f"{COOKIE}=" in header
    assert "HttpOnly" in header and "SameSite=lax" in header and "Max-Age=" in header
    assert "Secure" not in header  # served over plain http here
    # Requests stay on the client's own event loop (a database connection belongs to one).
    client.base_url = httpx.URL("https://testserver")
    try:
        answer = client.post(
            "/api/session",
            json={"name": "Cookie", "password": PASSWORD},
            headers={"origin": "https://testserver"},  # the page's own scheme (origin.py)
        )
    finally:
        client.base_url = httpx.URL("http://testserver")
    assert answer.status_code == 200
    assert "Secure" in answer.headers["set-cookie"]


def test_nobody_is_401(client: TestClient) -> None:
    client.cookies.clear()
    response = client.get("/api/me")
    assert response.status_code == 401 and _code(response) == "not_logged_in"


@pytest.mark.parametrize(
    ("name", "password", "code"),
    [
        ("ab", PASSWORD, "bad_name"),
        ("x" * 21, PASSWORD, "bad_name"),
        ("<b>bold</b>", PASSWORD, "bad_name"),
        ("ana ana", PASSWORD, "bad_name"),
        ("ana\u0000", PASSWORD, "bad_name"),
        ("Valid_Name", "short", "bad_password"),
        ("Valid_Name", "p" * 201, "bad_password"),
    ],
)
def test_bad_names_and_passwords_are_refused(
    client: TestClient, name: str, password: str, code: str
) -> None:
    client.cookies.clear()
    response = client.post("/api/accounts", json={"name": name, "password": password})
    assert response.status_code == 400 and _code(response) == code
    assert COOKIE not in response.headers.get("set-cookie", "")
    login = client.post("/api/session", json={"name": name, "password": password})
    assert login.status_code == 401


def test_names_are_unique_ignoring_case(client: TestClient) -> None:
    _sign_up(client, "Lucia")
    client.cookies.clear()
    response = client.post("/api/accounts", json={"name": "LUCIA", "password": "another one"})
    assert response.status_code == 409 and _code(response) == "name_taken"
    # The first account is unchanged: its password still logs in, the other one does not.
    assert client.post("/api/session", json={"name": "lucia", "password": PASSWORD}).is_success
    wrong = client.post("/api/session", json={"name": "Lucia", "password": "another one"})
    assert wrong.status_code == 401


def test_letters_of_other_alphabets_are_names(client: TestClient) -> None:
    assert _sign_up(client, "Muñoz-ção")["name"] == "Muñoz-ção"


def test_unknown_name_and_wrong_password_get_the_same_answer(client: TestClient) -> None:
    _sign_up(client, "Same_Answer")
    client.cookies.clear()
    unknown = client.post("/api/session", json={"name": "nobody_here", "password": PASSWORD})
    wrong = client.post("/api/session", json={"name": "Same_Answer", "password": "wrong one"})
    assert unknown.status_code == wrong.status_code == 401
    assert unknown.json() == wrong.json()
    assert _code(wrong) == "bad_login"
    assert COOKIE not in wrong.headers.get("set-cookie", "")


def test_log_out_ends_the_session(client: TestClient) -> None:
    _sign_up(client, "Leaving")
    token = client.cookies.get(COOKIE)
    response = client.delete("/api/session", headers=ORIGIN)
    assert response.status_code == 204
    client.cookies.clear()
    client.cookies.set(COOKIE, token or "")
    assert client.get("/api/me").status_code == 401  # the old cookie is dead on the server too


def test_a_forged_session_is_nobody(client: TestClient) -> None:
    client.cookies.clear()
    client.cookies.set(COOKIE, "forged-" + "x" * 40)
    assert client.get("/api/me").status_code == 401
    client.cookies.set(COOKIE, "y" * 5000)
    assert client.get("/api/me").status_code == 401


def test_a_cookie_sent_from_another_site_is_refused(client: TestClient) -> None:
    _sign_up(client, "Origin_Check")
    del client.headers["origin"]  # a request as another site's page, or a non-browser, makes it
    try:
        for headers in ({"origin": "https://evil.example"}, {"origin": "null"}, {}):
            response = client.post(
                "/api/me/password",
                json={"password": PASSWORD, "new_password": "taken over!"},
                headers=headers,
            )
            assert response.status_code == 403 and _code(response) == "bad_origin", headers
        # A Referer of this site is enough when a browser sends no Origin.
        referer = client.delete("/api/session", headers={"referer": "http://testserver/account"})
        assert referer.status_code == 204
    finally:
        client.headers.update(ORIGIN)
    # Nothing changed: the password is the old one.
    client.cookies.clear()
    assert client.post(
        "/api/session", json={"name": "Origin_Check", "password": PASSWORD}
    ).is_success


def test_requests_without_the_cookie_need_no_origin(client: TestClient) -> None:
    client.cookies.clear()
    created = client.post(
        "/api/games",
        json={"variant": "yahtzee", "seats": [{"kind": "human", "name": "Anon"}]},
        headers={"origin": "https://elsewhere.example"},
    )
    assert created.status_code == 201


def test_change_password(client: TestClient) -> None:
    _sign_up(client, "Changer")
    mine = client.cookies.get(COOKIE) or ""
    client.cookies.clear()
    assert client.post("/api/session", json={"name": "Changer", "password": PASSWORD}).is_success
    other = client.cookies.get(COOKIE) or ""
    assert other != mine
    client.cookies.clear()
    client.cookies.set(COOKIE, mine)
    wrong = client.post(
        "/api/me/password",
        json={"password": "not it at all", "new_password": "brand new pw"},
        headers=ORIGIN,
    )
    assert wrong.status_code == 401 and _code(wrong) == "bad_login"
    short = client.post(
        "/api/me/password", json={"password": PASSWORD, "new_password": "tiny"}, headers=ORIGIN
    )
    assert short.status_code == 400 and _code(short) == "bad_password"
    done = client.post(
        "/api/me/password",
        json={"password": PASSWORD, "new_password": "brand new pw"},
        headers=ORIGIN,
    )
    assert done.status_code == 204
    assert client.get("/api/me").status_code == 200  # this session stays
    client.cookies.clear()
    client.cookies.set(COOKIE, other)
    assert client.get("/api/me").status_code == 401  # every other one ended
    client.cookies.clear()
    assert (
        client.post("/api/session", json={"name": "Changer", "password": PASSWORD}).status_code
        == 401
    )
    assert client.post(
        "/api/session", json={"name": "Changer", "password": "brand new pw"}
    ).is_success


def test_delete_account_keeps_its_games_under_a_neutral_name(client: TestClient) -> None:
    _sign_up(client, "Deleted_One")
    wrong = client.request("DELETE", "/api/me", json={"password": "not the one"}, headers=ORIGIN)
    assert wrong.status_code == 401
    assert client.get("/api/me").status_code == 200
    gone = client.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=ORIGIN)
    assert gone.status_code == 204
    assert client.get("/api/me").status_code == 401
    login = client.post("/api/session", json={"name": "Deleted_One", "password": PASSWORD})
    assert login.status_code == 401
    # The name is free again.
    assert _sign_up(client, "deleted_one")["name"] == "deleted_one"
    assert DELETED_NAME


def test_bodies_of_the_wrong_shape_are_bad_requests(client: TestClient) -> None:
    client.cookies.clear()
    for body in (
        {"name": "x"},
        {"name": 3, "password": PASSWORD},
        {"name": "a" * 101, "password": "p"},
    ):
        response = client.post("/api/accounts", json=body)
        assert response.status_code == 400 and _code(response) == "bad_request", body


def test_logins_are_limited_per_address_and_per_name(database: str, tmp_path: Path) -> None:
    settings = _settings(database, login_rate=0.001, login_burst=3)
    with TestClient(create_app(settings), headers=ORIGIN) as limited:
        answers = [
            limited.post("/api/session", json={"name": f"n{n}xx", "password": PASSWORD})
            for n in range(4)
        ]
        assert [a.status_code for a in answers] == [401, 401, 401, 429]
        assert answers[-1].headers["retry-after"]
    settings = _settings(database, login_name_rate=0.001, login_name_burst=2)
    with TestClient(create_app(settings), headers=ORIGIN) as limited:
        limited.post("/api/accounts", json={"name": "Guarded", "password": PASSWORD})
        limited.cookies.clear()
        for _ in range(2):
            wrong = limited.post("/api/session", json={"name": "guarded", "password": "wrong pw!"})
            assert wrong.status_code == 401
        # The name is locked for a while, even with the right password; other names are not.
        locked = limited.post("/api/session", json={"name": "GUARDED", "password": PASSWORD})
        assert locked.status_code == 429 and _code(locked) == "rate_limited"
        other = limited.post("/api/session", json={"name": "someone", "password": PASSWORD})
        assert other.status_code == 401


def test_a_right_password_does_not_use_up_the_name_limit(database: str) -> None:
    settings = _settings(database, login_name_rate=0.001, login_name_burst=2)
    with TestClient(create_app(settings), headers=ORIGIN) as limited:
        limited.post("/api/accounts", json={"name": "Often", "password": PASSWORD})
        for _ in range(5):
            limited.cookies.clear()
            assert limited.post(
                "/api/session", json={"name": "Often", "password": PASSWORD}
            ).is_success


# --- seats under an account --------------------------------------------------------------------


def _create(
    client: TestClient, seats: list[dict[str, object]], **extra: object
) -> dict[str, object]:
    response = client.post("/api/games", json={"variant": "yahtzee", "seats": seats, **extra})
    assert response.status_code == 201, response.text
    body: dict[str, object] = response.json()
    return body


def test_a_seat_asked_under_the_account_is_the_account_s(client: TestClient) -> None:
    _sign_up(client, "Seated")
    game = _create(
        client, [{"kind": "human", "account": True}, {"kind": "bot", "level": "greedy"}], rated=True
    )
    seats = game["seats"]
    assert isinstance(seats, list)
    assert seats[0]["name"] == "Seated" and seats[0]["account"] is True and seats[0]["token"]
    assert seats[1]["account"] is False
    assert game["rated"] is True and "unrated_reason" not in game
    info = client.get(f"/api/games/{game['id']}").json()
    assert info["rated"] is True
    assert [seat["account"] for seat in info["seats"]] == [True, False]


def test_an_account_seat_needs_a_login_and_is_one_a_game(client: TestClient) -> None:
    client.cookies.clear()
    nobody = client.post(
        "/api/games", json={"variant": "yahtzee", "seats": [{"kind": "human", "account": True}]}
    )
    assert nobody.status_code == 401 and _code(nobody) == "not_logged_in"
    _sign_up(client, "Twice")
    two = client.post(
        "/api/games",
        json={
            "variant": "yahtzee",
            "seats": [{"kind": "human", "account": True}, {"kind": "human", "account": True}],
        },
    )
    assert two.status_code == 422 and _code(two) == "bad_seats"
    bot = client.post(
        "/api/games",
        json={"variant": "yahtzee", "seats": [{"kind": "bot", "account": True}]},
    )
    assert bot.status_code == 422 and _code(bot) == "bad_seats"


def test_a_rated_game_with_an_anonymous_seat_is_created_but_not_rated(client: TestClient) -> None:
    _sign_up(client, "Rated_Host")
    game = _create(
        client,
        [{"kind": "human", "account": True}, {"kind": "human", "name": "Guest"}],
        rated=True,
    )
    assert game["rated"] is False and game["unrated_reason"] == "anonymous_seat"
    unasked = _create(client, [{"kind": "human", "account": True}])
    assert unasked["rated"] is False and unasked["unrated_reason"] == "not_asked"


def test_a_logged_in_player_takes_an_open_seat_under_the_account(client: TestClient) -> None:
    client.cookies.clear()
    game = _create(client, [{"kind": "human", "name": "Host"}, {"kind": "human"}])
    _sign_up(client, "Joiner")
    joined = client.post(f"/api/games/{game['id']}/join", json={"name": "ignored"})
    assert joined.status_code == 200, joined.text
    info = client.get(f"/api/games/{game['id']}").json()
    assert info["seats"][1]["name"] == "Joiner" and info["seats"][1]["account"] is True
    # Anonymous, a name is needed.
    client.cookies.clear()
    other = _create(
        client, [{"kind": "human", "name": "Host"}, {"kind": "human"}, {"kind": "human"}]
    )
    nameless = client.post(f"/api/games/{other['id']}/join", json={})
    assert nameless.status_code == 400 and _code(nameless) == "bad_request"
    # One seat a game per account.
    client.post("/api/session", json={"name": "Joiner", "password": PASSWORD})
    first = client.post(f"/api/games/{other['id']}/join", json={})
    assert first.status_code == 200
    again = client.post(f"/api/games/{other['id']}/join", json={})
    assert again.status_code == 409 and _code(again) == "already_seated"
    seats = client.get(f"/api/games/{other['id']}").json()["seats"]
    assert [seat["taken"] for seat in seats] == [True, True, False]


def test_a_deleted_account_s_games_stay_under_a_neutral_name(client: TestClient) -> None:
    _sign_up(client, "Soon_Gone")
    game = _create(client, [{"kind": "human", "account": True}, {"kind": "bot", "level": "greedy"}])
    gone = client.request("DELETE", "/api/me", json={"password": PASSWORD})
    assert gone.status_code == 204
    client.cookies.clear()
    info = client.get(f"/api/games/{game['id']}")
    assert info.status_code == 200
    seat = info.json()["seats"][0]
    assert seat["name"] == DELETED_NAME and seat["account"] is False and seat["taken"] is True
    assert client.get(f"/api/games/{game['id']}/record").status_code == 200
