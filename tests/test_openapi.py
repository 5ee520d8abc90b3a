"""The API describes itself truly: every route's OpenAPI entry names its answer model and exactly
the errors the route answers (each in the API's error shape, and each one made to happen here),
the record import documents its body, and the WebSocket protocol's JSON Schema is served and
every message a real server sends validates against it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from dicepoker.master.messages import RESYNC
from dicepoker.protocol import ws_schema
from dicepoker.server.settings import Settings
from dicepoker.site import create_app
from live_server import LiveServer
from ws_client import Player

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "spec_examples"
ERROR = "#/components/schemas/ErrorResponse"

#: Every route of the API and the statuses it answers: its success, then its errors.
ROUTES: dict[tuple[str, str], set[int]] = {
    ("post", "/api/games"): {201, 400, 401, 409, 413, 422, 429},
    ("get", "/api/games"): {200, 400},
    ("post", "/api/games/{game_id}/join"): {200, 400, 404, 409, 413, 429},
    ("post", "/api/games/{game_id}/rematch"): {200, 201, 403, 404, 409, 429},
    ("get", "/api/games/{game_id}"): {200, 403, 404},
    ("get", "/api/games/{game_id}/record"): {200, 403, 404},
    ("get", "/api/games/{game_id}/ratings"): {200, 403, 404},
    ("get", "/api/games/{game_id}/position"): {200, 400, 403, 404},
    ("get", "/api/games/{game_id}/advice"): {200, 403, 404, 409, 429},
    ("get", "/api/games/{game_id}/analysis"): {200, 403, 404, 429},
    ("get", "/api/games/{game_id}/verify"): {200, 403, 404, 409},
    ("post", "/api/records"): {201, 403, 413, 422, 429},
    ("get", "/api/records/{record_id}"): {200, 404},
    ("get", "/api/records/{record_id}/analysis"): {200, 403, 404, 422, 429},
    ("get", "/api/records/{record_id}/verify"): {200, 404},
    ("get", "/api/records/{record_id}/position"): {200, 400, 404, 422},
    ("get", "/api/variants"): {200},
    ("get", "/api/schema/ws.json"): {200},
    ("post", "/api/accounts"): {201, 400, 403, 409, 413, 429},
    ("post", "/api/session"): {200, 400, 401, 403, 413, 429},
    ("delete", "/api/session"): {204, 403},
    ("get", "/api/me"): {200, 401},
    ("post", "/api/me/password"): {204, 400, 401, 403, 413, 429},
    ("delete", "/api/me"): {204, 401, 403, 413, 429},
    ("get", "/api/daily/{preset}"): {200, 400, 404},
    ("post", "/api/daily/{preset}"): {201, 401, 403, 404, 409, 413, 429},
    ("get", "/api/daily/{preset}/leaderboard"): {200, 400, 404},
    ("get", "/api/players/{name}"): {200, 400, 404},
    ("get", "/api/leaderboard/{pool}"): {200, 400, 404},
    ("get", "/api/puzzles/next"): {200, 400, 404},
    ("get", "/api/puzzles/{puzzle_id}"): {200, 404},
    ("post", "/api/puzzles/{puzzle_id}"): {200, 400, 404, 413, 429},
}


def _settings(tmp_path: Path, name: str, **limits: Any) -> Settings:
    return Settings(
        database=str(tmp_path / f"{name}.db"),
        bot_delay=0,
        bot_workers=0,
        ws_rate=0,
        http_rate=limits.pop("http_rate", 0),
        analysis_rate=limits.pop("analysis_rate", 0),
        **limits,
    )


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    app = create_app(_settings(tmp_path_factory.mktemp("openapi"), "doc"))
    with TestClient(app) as client:
        response = client.get("/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def test_every_route_names_its_answer_model_and_its_errors(openapi: dict[str, Any]) -> None:
    documented = {
        (method, path): operation
        for path, operations in openapi["paths"].items()
        for method, operation in operations.items()
    }
    assert set(documented) == set(ROUTES)
    schemas = openapi["components"]["schemas"]
    for route, operation in documented.items():
        answers = operation["responses"]
        assert {int(status) for status in answers} == ROUTES[route], route
        for status, answer in answers.items():
            if int(status) == 204:
                assert "content" not in answer, route  # no body
                continue
            schema = answer["content"]["application/json"]["schema"]
            if int(status) >= 400:
                assert schema == {"$ref": ERROR}, (route, status)
                assert answer["description"], (route, status)
            elif route[1] != "/api/schema/ws.json":
                name = schema["$ref"].removeprefix("#/components/schemas/")
                assert schemas[name]["properties"], (route, name)
    # FastAPI's own validation answer is never sent (invalid requests are 400 bad_request).
    assert "HTTPValidationError" not in json.dumps(openapi)
    error = schemas["ErrorResponse"]["properties"]["error"]["$ref"].rsplit("/", 1)[-1]
    assert {"code", "message"} <= set(schemas[error]["required"])


def test_the_record_import_documents_its_body(openapi: dict[str, Any]) -> None:
    body = openapi["paths"]["/api/records"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    assert body["required"] is True
    assert {"variant", "players", "turns"} <= set(schema["properties"])
    assert {"variant", "players"} <= set(schema["required"])


# --- each documented error, made to happen ------------------------------------------------------


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, TestClient]]:
    """An app without limits, and one whose every limit is spent after one request."""
    folder = tmp_path_factory.mktemp("errors")
    free = create_app(_settings(folder, "free", max_record_bytes=64 * 1024, login_rate=0))
    tight = create_app(
        _settings(
            folder,
            "tight",
            http_rate=0.001,
            http_burst=1,
            analysis_rate=0.001,
            analysis_burst=1,
            login_rate=0.001,
            login_burst=1,
            login_name_rate=0.001,
            login_name_burst=1,
        )
    )
    with TestClient(free) as open_client, TestClient(tight) as tight_client:
        yield open_client, tight_client


def _game(client: TestClient, seats: list[dict[str, Any]] | None = None) -> str:
    seats = seats or [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]
    body = {"variant": "school", "options": {"columns": 1}, "seats": seats}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    game_id: str = response.json()["id"]
    return game_id


def _seated_game(client: TestClient) -> tuple[str, str]:
    """A running game and the token of its first seat."""
    body = {"variant": "school", "seats": [{"kind": "human", "name": "Ana"}]}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    return created["id"], created["seats"][0]["token"]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _record() -> dict[str, Any]:
    record: dict[str, Any] = json.loads((GOLDEN / "school-3c-2p.json").read_text())
    return record


def _legacy_record(client: TestClient) -> str:
    """A record stored before records were checked strictly (put into the store directly): it
    does not replay, and its routes answer 422, never 500."""
    bad = _record()
    bad["turns"][3]["rolls"][0]["dice"] = [9, 9, 9, 9, 9]
    app: Any = client.app
    assert client.portal is not None  # the client runs the app (its lifespan) on a portal
    client.portal.call(app.state.services.store.save_record, "legacy", json.dumps(bad))
    return "legacy"


def test_every_documented_error_is_answered(clients: tuple[TestClient, TestClient]) -> None:
    free, tight = clients
    game = _game(free)
    running, ana = _seated_game(free)
    no_hints = free.post(
        "/api/games",
        json={"variant": "school", "seats": [{"kind": "human", "name": "Ana"}], "assisted": False},
    ).json()["id"]
    finished = _game(free, [{"kind": "bot", "level": "random"}])
    record = free.post("/api/records", json=_record())
    assert record.status_code == 201
    stored = record.json()["id"]
    legacy = _legacy_record(free)
    huge = b'{"name": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    deadline = time.monotonic() + 60
    while free.get(f"/api/games/{finished}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bot game did not end"
        time.sleep(0.02)  # polling a condition: the bot plays on the app's own loop
    cases: dict[tuple[str, str], dict[int, httpx.Response]] = {
        ("post", "/api/games"): {
            400: free.post("/api/games", json={"variant": "school", "seats": []}),
            401: free.post(
                "/api/games",
                json={"variant": "yahtzee", "seats": [{"kind": "human", "account": True}]},
            ),
            409: free.post(
                "/api/games",
                json={"variant": "yahtzee", "seats": [{"kind": "human", "name": "Expert 2"}]},
            ),
            413: free.post("/api/games", content=huge),
            422: free.post("/api/games", json={"variant": "chess", "seats": [{"kind": "human"}]}),
        },
        ("get", "/api/games"): {400: free.get("/api/games?status=lost")},
        ("post", "/api/games/{game_id}/join"): {
            400: free.post(f"/api/games/{game}/join", json={"name": "  "}),
            404: free.post("/api/games/nope/join", json={"name": "Caio"}),
            409: free.post(f"/api/games/{game}/join", json={"name": "Caio"}),
            413: free.post(f"/api/games/{game}/join", content=huge),
        },
        ("post", "/api/games/{game_id}/rematch"): {
            403: free.post(f"/api/games/{finished}/rematch"),
            404: free.post("/api/games/nope/rematch", headers=_bearer(ana)),
            409: free.post(f"/api/games/{running}/rematch", headers=_bearer(ana)),
        },
        ("get", "/api/games/{game_id}"): {404: free.get("/api/games/nope")},
        ("get", "/api/games/{game_id}/record"): {404: free.get("/api/games/nope/record")},
        ("get", "/api/games/{game_id}/ratings"): {404: free.get("/api/games/nope/ratings")},
        ("get", "/api/games/{game_id}/position"): {
            400: free.get(f"/api/games/{game}/position?turn=x"),
            404: free.get("/api/games/nope/position"),
        },
        ("get", "/api/games/{game_id}/advice"): {
            403: free.get(f"/api/games/{no_hints}/advice"),
            404: free.get("/api/games/nope/advice"),
            409: free.get(f"/api/games/{finished}/advice"),
        },
        ("get", "/api/games/{game_id}/analysis"): {
            403: free.get(f"/api/games/{no_hints}/analysis"),
            404: free.get("/api/games/nope/analysis"),
        },
        ("get", "/api/games/{game_id}/verify"): {
            404: free.get("/api/games/nope/verify"),
            409: free.get(f"/api/games/{game}/verify"),
        },
        ("post", "/api/records"): {
            413: free.post("/api/records", content=b"[" * (64 * 1024 + 1)),
            422: free.post("/api/records", content=b'{"variant": "school", "variant": "x"}'),
        },
        ("get", "/api/records/{record_id}"): {404: free.get("/api/records/nope")},
        ("get", "/api/records/{record_id}/analysis"): {
            404: free.get("/api/records/nope/analysis"),
            422: free.get(f"/api/records/{legacy}/analysis"),
        },
        ("get", "/api/records/{record_id}/verify"): {404: free.get("/api/records/nope/verify")},
        ("get", "/api/records/{record_id}/position"): {
            400: free.get(f"/api/records/{stored}/position?roll=x"),
            404: free.get("/api/records/nope/position"),
            422: free.get(f"/api/records/{legacy}/position?turn=9"),
        },
    }
    # The limits: the first request of each kind goes through, the next one is refused.
    limited = _game(tight)
    tight.get(f"/api/games/{limited}/analysis")
    cases[("post", "/api/games/{game_id}/join")][429] = tight.post(
        f"/api/games/{limited}/join", json={"name": "Caio"}
    )
    cases[("post", "/api/games")][429] = tight.post("/api/games", json={})
    cases[("post", "/api/games/{game_id}/rematch")][429] = tight.post(
        f"/api/games/{limited}/rematch"
    )
    cases[("post", "/api/records")][429] = tight.post("/api/records", json=_record())
    cases[("get", "/api/games/{game_id}/advice")][429] = tight.get(f"/api/games/{limited}/advice")
    cases[("get", "/api/games/{game_id}/analysis")][429] = tight.get(
        f"/api/games/{limited}/analysis"
    )
    cases[("get", "/api/records/{record_id}/analysis")][429] = tight.get(
        "/api/records/nope/analysis"
    )
    cases.update(_account_cases(free, tight, huge))
    cases[("get", "/api/players/{name}")] = {
        400: free.get("/api/players/Probe?limit=0"),
        404: free.get("/api/players/nobody"),
    }
    cases[("get", "/api/leaderboard/{pool}")] = {
        400: free.get("/api/leaderboard/yahtzee?limit=201"),
        404: free.get("/api/leaderboard/chess"),
    }
    for route, answers in _daily_cases(free, tight, huge).items():
        cases.setdefault(route, {}).update(answers)
    copy = free.post("/api/records", json=free.get(f"/api/games/{no_hints}/record").json())
    assert copy.status_code == 201, copy.text
    copied = copy.json()["id"]
    cases[("get", "/api/records/{record_id}/analysis")][403] = free.get(
        f"/api/records/{copied}/analysis"
    )
    cases.update(_puzzle_cases(free, tight, huge))
    for route, statuses in ROUTES.items():
        errors = {status for status in statuses if status >= 400}
        assert set(cases.get(route, {})) == errors, route
        for status, response in cases.get(route, {}).items():
            assert response.status_code == status, (route, status, response.text)
            body = response.json()
            assert set(body) == {"error"} and body["error"]["code"] and body["error"]["message"]


def _account_cases(
    free: TestClient, tight: TestClient, huge: bytes
) -> dict[tuple[str, str], dict[int, httpx.Response]]:
    """The accounts' errors; the session cookie is set only for the requests that need it."""
    ours, theirs = {"origin": "http://testserver"}, {"origin": "https://evil.example"}
    login = {"name": "Probe", "password": "probe password"}
    assert free.post("/api/accounts", json=login).status_code == 201
    session = dict(free.cookies)
    free.cookies.clear()
    anonymous = {
        ("post", "/api/accounts"): {
            400: free.post("/api/accounts", json={"name": "<b>", "password": "long enough"}),
            409: free.post("/api/accounts", json={"name": "PROBE", "password": "long enough"}),
            413: free.post("/api/accounts", content=huge),
        },
        ("post", "/api/session"): {
            400: free.post("/api/session", json={"name": "Probe"}),
            401: free.post("/api/session", json={"name": "Probe", "password": "wrong one!"}),
            413: free.post("/api/session", content=huge),
        },
        ("get", "/api/me"): {401: free.get("/api/me")},
        ("post", "/api/me/password"): {
            401: free.post("/api/me/password", json={"password": "x", "new_password": "y"}),
            413: free.post("/api/me/password", content=huge),
        },
        ("delete", "/api/me"): {
            401: free.request("DELETE", "/api/me", json={"password": "x"}),
            413: free.request("DELETE", "/api/me", content=huge),
        },
    }
    free.cookies.update(session)
    short = {"password": login["password"], "new_password": "short"}
    anonymous[("post", "/api/accounts")][403] = free.post(
        "/api/accounts", json=login, headers=theirs
    )
    anonymous[("post", "/api/session")][403] = free.post("/api/session", json=login, headers=theirs)
    anonymous[("delete", "/api/session")] = {403: free.delete("/api/session", headers=theirs)}
    anonymous[("post", "/api/me/password")][400] = free.post(
        "/api/me/password", json=short, headers=ours
    )
    anonymous[("post", "/api/me/password")][403] = free.post(
        "/api/me/password", json=short, headers=theirs
    )
    anonymous[("delete", "/api/me")][403] = free.request(
        "DELETE", "/api/me", json={"password": "x"}, headers=theirs
    )
    free.cookies.clear()
    # The limits: per address for sign-ups and logins, per name for wrong passwords.
    tight.post("/api/accounts", json=login)
    # The session alone, as a stolen one would be: the account's device has a budget of its own.
    tight_session = {"dicepoker_session": tight.cookies["dicepoker_session"]}
    tight.cookies.clear()
    anonymous[("post", "/api/accounts")][429] = tight.post("/api/accounts", json=login)
    anonymous[("post", "/api/session")][429] = tight.post("/api/session", json=login)
    tight.cookies.update(tight_session)
    wrong = {"password": "not the password", "new_password": "whatever new"}
    tight.post("/api/me/password", json=wrong, headers=ours)  # spends the name's one try
    anonymous[("post", "/api/me/password")][429] = tight.post(
        "/api/me/password", json=wrong, headers=ours
    )
    anonymous[("delete", "/api/me")][429] = tight.request(
        "DELETE", "/api/me", json={"password": "x"}, headers=ours
    )
    tight.cookies.clear()
    return anonymous


def _daily_cases(
    free: TestClient, tight: TestClient, huge: bytes
) -> dict[tuple[str, str], dict[int, httpx.Response]]:
    """The daily challenge's errors: a second game of an account on the same day is its 409;
    its game, and a copy of it, are its player's alone until the day is over (403)."""
    ours, theirs = {"origin": "http://testserver"}, {"origin": "https://evil.example"}
    probe = {"name": "DailyProbe", "password": "probe password"}
    assert free.post("/api/accounts", json=probe).status_code == 201
    started = free.post("/api/daily/school", headers=ours)
    assert started.status_code == 201, started.text
    daily, token = started.json()["id"], started.json()["token"]
    played = free.post("/api/daily/school", headers=ours)
    forged = free.post("/api/daily/school", headers=theirs)
    free.cookies.clear()
    tight.post("/api/daily/school", headers=ours)
    record = free.get(f"/api/games/{daily}/record", headers=_bearer(token)).json()
    private = {
        ("get", f"/api/games/{{game_id}}{path}"): {403: free.get(f"/api/games/{daily}{path}")}
        for path in ("", "/record", "/ratings", "/position", "/verify")
    }
    return {
        **private,
        ("post", "/api/records"): {403: free.post("/api/records", json=record)},
        ("get", "/api/daily/{preset}"): {
            400: free.get("/api/daily/school?date=yesterday"),
            404: free.get("/api/daily/chess"),
        },
        ("post", "/api/daily/{preset}"): {
            401: free.post("/api/daily/school", headers=ours),
            403: forged,
            404: free.post("/api/daily/chess", headers=ours),
            409: played,
            413: free.post("/api/daily/school", content=huge),
            429: tight.post("/api/daily/school", headers=ours),
        },
        ("get", "/api/daily/{preset}/leaderboard"): {
            400: free.get("/api/daily/school/leaderboard?date=2031-02-30"),
            404: free.get("/api/daily/school/leaderboard?date=2999-01-01"),
        },
    }


def _puzzle_cases(
    free: TestClient, tight: TestClient, huge: bytes
) -> dict[tuple[str, str], dict[int, httpx.Response]]:
    """The puzzles' errors (no game of people has ended here: no puzzle of any preset yet)."""
    return {
        ("get", "/api/puzzles/next"): {
            400: free.get("/api/puzzles/next?preset=chess"),
            404: free.get("/api/puzzles/next?preset=school"),
        },
        ("get", "/api/puzzles/{puzzle_id}"): {404: free.get("/api/puzzles/nope")},
        ("post", "/api/puzzles/{puzzle_id}"): {
            400: free.post("/api/puzzles/nope", json={"act": "roll"}),
            404: free.post("/api/puzzles/nope", json={"action": "roll"}),
            413: free.post("/api/puzzles/nope", content=huge),
            429: tight.post("/api/puzzles/nope", json={"action": "roll"}),
        },
    }


# --- the WebSocket schema -----------------------------------------------------------------------


def test_the_websocket_schema_is_served(clients: tuple[TestClient, TestClient]) -> None:
    response = clients[0].get("/api/schema/ws.json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/schema+json")
    served = response.json()
    assert served == ws_schema()
    assert served == json.loads((REPO / "docs" / "ws-schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(served)


def _server_messages(schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator({**schema, "anyOf": [{"$ref": "#/$defs/ServerMessage"}]})


def test_every_message_a_server_sends_validates_against_the_schema(server: LiveServer) -> None:
    schema = server.get("/api/schema/ws.json")
    validator = _server_messages(schema)
    body = server.post(
        "/api/games",
        {
            "variant": "poker-dice",
            "turn_seconds": 0,
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human"}],
        },
    ).json()
    game_id = body["id"]
    ana = Player(server.ws_url, game_id, body["seats"][0]["token"])
    watcher = Player(server.ws_url, game_id)
    try:
        assert ana.act("roll", 0)["code"] == "waiting"
        token = server.post(f"/api/games/{game_id}/join", {"name": "Bea"}).json()["token"]
        ana.until(lambda m: m["type"] == "seats")
        bea = Player(server.ws_url, game_id, token)
        ana.act("roll", 0)
        ana.act("roll", 0, ref="late")  # stale
        bea.send({"type": "auto", "ref": "b1"})  # not her turn
        bea.until(lambda m: m["type"] == "error")
        ana.send({"type": "auto"})
        ana.until(lambda m: m["type"] == "event" and ana.state["turn"]["seat"] == 1)
        ana.send({"type": "sync", "last_seq": 0})
        ana.until(lambda m: m["type"] == "sync")
        ana.send('{"type": "ping", "type": "ping"}')  # a duplicate key
        ana.until(lambda m: m["type"] == "error" and m["code"] == "bad_message")
        ana.send({"type": "ping"})
        ana.until(lambda m: m["type"] == "pong")
        watcher.send({"type": "act", "action": "roll"})
        watcher.until(lambda m: m["type"] == "error")
        bea.close()
        seen = [*ana.seen, *bea.seen, *watcher.seen, json.loads(RESYNC)]
    finally:
        ana.close()
        watcher.close()
    kinds = {message["type"] for message in seen}
    assert kinds == {"welcome", "seats", "event", "sync", "pong", "error", "resync"}
    for message in seen:
        problems = [error.message for error in validator.iter_errors(message)]
        assert not problems, (message["type"], problems[:3])
    # The schema is no rubber stamp: a message missing a part, or of an unknown type, fails.
    event = next(m for m in seen if m["type"] == "event")
    assert not validator.is_valid({key: value for key, value in event.items() if key != "seq"})
    assert not validator.is_valid({**event, "changes": {"turn": "rolled"}})
    assert not validator.is_valid({**event, "type": "party"})
