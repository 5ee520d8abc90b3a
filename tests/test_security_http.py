"""Security of the web app's HTTP answers (docs/security.md): security headers on every
response, and errors that never show the server's internals (tracebacks, paths, SQL, class
names), however a request goes wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from live_server import LiveServer
from security_support import assert_no_internals, create, humans
from ws_client import Player

# --- HTTP: headers and errors ------------------------------------------------------------------


def check_headers(response: httpx.Response) -> None:
    csp = response.headers.get("content-security-policy", "")
    directives = dict(
        [*part.strip().split(" ", 1), ""][:2] for part in csp.split(";") if part.strip()
    )
    assert directives.get("default-src") == "'self'", (response.url, csp)
    assert directives.get("script-src") == "'self'", csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert directives.get("frame-ancestors") == "'none'"
    assert directives.get("object-src") == "'none'"
    assert response.headers.get("x-frame-options") == "DENY"
    assert response.headers.get("x-content-type-options") == "nosniff"
    assert response.headers.get("referrer-policy") == "same-origin"


def test_security_headers_on_every_response(server: LiveServer) -> None:
    body = create(server, humans("Ana"))
    paths = [
        "/",
        f"/g/{body['id']}",
        f"/replay/g/{body['id']}",
        "/rules/school",
        "/i18n/es.json",
        "/static/js/table.js",
        "/static/css/app.css",
        "/api/variants",
        f"/api/games/{body['id']}",
        "/api/games/nope",
        "/no/such/page",
        "/api/games?limit=abc",
    ]
    with httpx.Client(base_url=server.url, timeout=10) as client:
        for path in paths:
            response = client.get(path)
            assert response.status_code < 500, path
            check_headers(response)
        for response in (
            client.post("/api/games", content=b"{", headers={"content-type": "application/json"}),
            client.put("/api/games"),
            client.post("/api/records", content=b"x" * (2 * 1024 * 1024)),
        ):
            assert 400 <= response.status_code < 500
            check_headers(response)
        # The pages have no inline script, event handler or style attribute for the CSP to block.
        for path in paths[:4]:
            html = client.get(path).text
            for tag in re.findall(r"<script\b[^>]*>", html):
                assert re.search(r'\bsrc="/static/', tag), tag
            assert not re.search(r"<script\b[^>]*>\s*[^<\s]", html), path
            assert not re.search(r"\son[a-z]+\s*=", html), path
            assert not re.search(r"\sstyle\s*=", html), path
            assert "<style" not in html, path
        # Swagger UI (its own, looser policy) still cannot be framed.
        docs = client.get("/api/docs")
        assert "frame-ancestors 'none'" in docs.headers["content-security-policy"]


def test_errors_never_show_internals(server: LiveServer) -> None:
    body = create(server, humans("Ana", None))
    game_id = body["id"]
    json_type = {"content-type": "application/json"}
    nested = b"[" * 100_000 + b"]" * 100_000
    with httpx.Client(base_url=server.url, timeout=30) as client:
        answers = [
            client.post("/api/games", content=b"{not json", headers=json_type),
            client.post("/api/games", content=b"\xff\xfe\x00{", headers=json_type),
            client.post("/api/games", json={"variant": 5, "seats": "many"}),
            client.post("/api/games", json={"variant": "school", "seats": [{"kind": 1}]}),
            client.post("/api/games", json=[1, 2, 3]),
            client.post(
                "/api/games",
                json={"variant": "school", "options": {"columns": "x"}, "seats": humans("A")},
            ),
            client.post(
                "/api/games",
                json={"variant": "school", "options": {"columns": 10**40}, "seats": humans("A")},
            ),
            client.post(
                "/api/games",
                json={"variant": "school", "options": {"columns": [1]}, "seats": humans("A")},
            ),
            client.post("/api/games", json={"variant": "school", "seats": humans("A"), "x": 1}),
            client.post("/api/games", content=b'{"variant": 1e999}', headers=json_type),
            client.post(
                "/api/games", content=b'{"turn_seconds": ' + b"9" * 5000 + b"}", headers=json_type
            ),
            client.post(f"/api/games/{game_id}/join", json={"name": 5}),
            client.post(f"/api/games/{game_id}/join", json={"seat": "one", "name": "x"}),
            client.post(f"/api/games/{game_id}/join", json={"seat": 99, "name": "x"}),
            client.post("/api/games/no-such-game/join", json={"name": "x"}),
            client.get("/api/games/no-such-game"),
            client.get("/api/games/" + "é" * 3000),
            client.get("/api/games/no-such-game/record"),
            client.get(f"/api/games/{game_id}/position?turn=1e99"),
            client.get(f"/api/games/{game_id}/position?turn=" + "9" * 40),
            client.get("/api/games?status=sideways"),
            client.get("/api/games?limit=-1e9"),
            client.get("/api/records/no-such-record"),
            client.get("/api/records/no-such-record/analysis"),
            client.post("/api/records", content=b"\xff\xfe"),
            client.post("/api/records", content=nested),
            client.post("/api/records", content=b"9" * 100_000),
            client.post("/api/records", json={"variant": "school", "players": "Ana"}),
            client.post("/api/records", json={"variant": "school", "players": ["A"], "turns": 1}),
            client.post(
                "/api/records",
                json={"variant": "school", "players": ["A"], "turns": [{"rolls": [{"dice": 5}]}]},
            ),
            client.post("/api/records", content=b"x" * (2 * 1024 * 1024)),
            client.delete(f"/api/games/{game_id}"),
            client.get("/g/../../etc/passwd"),
            client.get("/replay/x/y"),
            client.get("/rules/nope"),
        ]
        for response in answers:
            assert response.status_code < 500, (response.request.url, response.text)
            assert_no_internals(response.text)
            if response.request.url.path.startswith("/api/") and response.status_code >= 400:
                try:
                    data = response.json()
                except ValueError:
                    raise AssertionError(
                        (response.request.url, response.status_code, response.text[:300])
                    ) from None
                assert isinstance(data, dict), response.text
                if "error" in data:
                    assert set(data["error"]) >= {"code", "message"}
    # The WebSocket: every refusal is a short, plain error.
    ana = Player(server.ws_url, game_id, body["seats"][0]["token"])
    for raw in [
        "not json",
        "",
        "null",
        '{"type": "act", "action": 5}',
        '{"type": "act", "action": "roll", "seq": 1e999}',
        '{"type": "sync", "last_seq": 99999999999999999999999999}',
        '{"type": "sync", "last_seq": -1}',
        '{"type": "act", "action": "hold 9"}',
        '{"type": "act", "action": "score nope"}',
        '{"type": "act", "action": "\\u0000"}',
        "[" * 1000 + "]" * 1000,
    ]:
        ana.send(raw)
        error = ana.until(lambda m: m["type"] == "error")
        assert_no_internals(json.dumps(error))
    ana.close()
    for path in ("/ws/games/no-such-game", f"/ws/games/{game_id}?token=wrong"):
        with pytest.raises(InvalidStatus) as refused:
            connect(server.ws_url + path, open_timeout=10)
        assert_no_internals(refused.value.response.body.decode(errors="replace"))


def test_an_unexpected_error_is_a_plain_500(tmp_path: Path) -> None:
    """The catch-all handler: a crash answers a generic message, with the security headers."""
    from dicepoker.site import Settings, create_app

    app = create_app(Settings(database=str(tmp_path / "crash.db"), bot_delay=0))

    async def crash() -> None:
        raise RuntimeError("SELECT secret FROM /src/dicepoker/server/storage/store.py")

    app.add_api_route("/api/crash", crash)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/crash")
    assert response.status_code == 500
    assert response.json() == {
        "error": {"code": "internal", "message": "something went wrong on the server"}
    }
    assert_no_internals(response.text)
    check_headers(response)


def test_token_buckets() -> None:
    """The limiters' arithmetic, on a clock of their own."""
    from dicepoker.server.http.security import SocketLimiter, Verdict
    from dicepoker.server.runtime.limits import ClientLimiter, TokenBucket

    bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.wait(0.0) == pytest.approx(0.5)
    assert bucket.take(0.5) and not bucket.take(0.5)
    assert bucket.take(100.0)  # refills up to the burst, no further
    assert [bucket.take(100.0) for _ in range(3)] == [True, True, False]
    assert all(TokenBucket(0, 1).take() for _ in range(1000))  # rate 0: no limit

    socket = SocketLimiter(rate=10.0, burst=5)
    verdicts = [socket.check(0.0) for _ in range(12)]
    assert verdicts == [Verdict.ACCEPT] * 5 + [Verdict.REFUSE] * 5 + [Verdict.CLOSE] * 2
    calm = SocketLimiter(rate=10.0, burst=5)
    # Just over the rate for a while is refused now and then, never closed.
    verdicts = [calm.check(t * 0.09) for t in range(200)]
    assert Verdict.REFUSE in verdicts and Verdict.CLOSE not in verdicts

    clients = ClientLimiter(rate=1.0, burst=2, max_clients=3)
    assert clients.check("a", 0.0) is None and clients.check("a", 0.0) is None
    assert clients.check("a", 0.0) == pytest.approx(1.0)
    assert clients.check("b", 0.0) is None  # addresses do not share a bucket
    for address in ("c", "d", "e"):
        clients.check(address, 0.0)
    assert len(clients.buckets) == 3 and "a" not in clients.buckets  # least recently used left
