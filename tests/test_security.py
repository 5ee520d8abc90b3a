"""Security of the web app against a real `dicepoker serve` (docs/security.md): seat tokens
(unguessable, stored hashed, never shown to anyone else), spectators, the Origin check, message
and body size limits, the per-connection and per-address rate limits, record import limits.
HTTP headers and errors: tests/test_security_http.py.

The module's `server` runs without rate limits (like every test server); `limited` runs with the
limits set low so the tests can reach them. The per-address limit counts by client address, and
`limited` believes X-Forwarded-For from loopback (`--forwarded-allow-ips 127.0.0.1`; by default
no proxy is trusted, tests/test_proxy.py), so each test speaks from an address of its own.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from live_server import LiveServer
from security_support import GOLDEN, assert_no_internals, catch_up, create, humans
from ws_client import Player

WS_RATE = 10
WS_BURST = 20
HTTP_BURST = 5
ANALYSIS_BURST = 4
RECORD_BYTES = 64 * 1024
RECORD_TURNS = 60


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    limits = (
        "--ws-rate",
        str(WS_RATE),
        "--ws-burst",
        str(WS_BURST),
        "--http-rate",
        "0.01",
        "--http-burst",
        str(HTTP_BURST),
        "--analysis-rate",
        "0.01",
        "--analysis-burst",
        str(ANALYSIS_BURST),
        "--max-record-bytes",
        str(RECORD_BYTES),
        "--max-record-turns",
        str(RECORD_TURNS),
        "--forwarded-allow-ips",
        "127.0.0.1",
    )
    database = str(tmp_path_factory.mktemp("limited") / "games.db")
    live = LiveServer(database, limits=limits).start()
    yield live
    live.stop()


# --- seat tokens -------------------------------------------------------------------------------


def test_tokens_are_unguessable_and_stored_only_as_hashes(server: LiveServer) -> None:
    tokens: list[str] = []
    for _ in range(5):
        body = create(server, humans("Ana", "Bea", "Cy", "Dee"))
        tokens += [seat["token"] for seat in body["seats"]]
    assert len(set(tokens)) == len(tokens)
    for token in tokens:
        assert re.fullmatch(r"[A-Za-z0-9_-]{32,}", token), token
        assert len(base64.urlsafe_b64decode(token + "==")) >= 24  # 192 random bits
    # The database holds the SHA-256 of each token, never the token.
    files = [path for path in Path(server.database).parent.iterdir() if path.is_file()]
    stored = b"".join(path.read_bytes() for path in files)
    for token in tokens:
        assert token.encode() not in stored
        assert hashlib.sha256(token.encode()).hexdigest().encode() in stored


def test_tokens_never_reach_other_players_spectators_or_the_api(server: LiveServer) -> None:
    body = create(server, [*humans("Ana", "Bea", None), {"kind": "bot", "level": "greedy"}])
    game_id = body["id"]
    tokens = {seat["seat"]: seat["token"] for seat in body["seats"] if seat["token"]}
    watcher = Player(server.ws_url, game_id)
    ana = Player(server.ws_url, game_id, tokens[0])
    bea = Player(server.ws_url, game_id, tokens[1])
    joined = server.post(f"/api/games/{game_id}/join", {"name": "Cy"})
    assert joined.status_code == 200
    assert set(joined.json()) == {"seat", "token"}
    tokens[2] = joined.json()["token"]
    assert tokens[2] not in body["seats"]
    cy = Player(server.ws_url, game_id, tokens[2])
    players = {0: ana, 1: bea, 2: cy}
    while True:
        game = server.get(f"/api/games/{game_id}")
        if game["status"] == "finished":
            break
        seat = game["state"]["turn"]["seat"]
        if seat == 3:  # the bot: wait for it
            server.wait_for(f"/api/games/{game_id}", lambda g, seq=game["seq"]: g["seq"] > seq)
            continue
        player = players[seat]
        catch_up(player, game["seq"])
        player.play_turn()
    final = server.get(f"/api/games/{game_id}")["seq"]
    for seat, player in players.items():
        catch_up(player, final)
        seen = json.dumps(player.seen)
        for other, token in tokens.items():
            if other != seat:
                assert token not in seen, (seat, other)
    catch_up(watcher, final)
    assert len(watcher.seen) > final
    seen = json.dumps(watcher.seen)
    # Nor in any public answer of the API.
    public = [
        server.get(f"/api/games/{game_id}"),
        server.get("/api/games?status=finished"),
        server.get(f"/api/games/{game_id}/record"),
        server.get(f"/api/games/{game_id}/position?turn=5"),
    ]
    for token in tokens.values():
        assert token not in seen
        assert "token" not in json.dumps(public)
        for answer in public:
            assert token not in json.dumps(answer)
    for player in (*players.values(), watcher):
        player.close()


def _game_now(server: LiveServer, game_id: str) -> dict[str, Any]:
    """The game as the API shows it, but for the position's chances, which come whenever the
    work queue has judged the position, whatever anyone does (they were once judged
    between the two reads of a test on a busy machine)."""
    game: dict[str, Any] = server.get(f"/api/games/{game_id}")
    game.pop("win_probability", None)
    return game


def test_spectators_and_wrong_tokens_cannot_act(server: LiveServer) -> None:
    body = create(server, humans("Ana", "Bea"))
    game_id = body["id"]
    ana = Player(server.ws_url, game_id, body["seats"][0]["token"])
    assert ana.act("roll")["type"] == "event"
    before = _game_now(server, game_id)
    watcher = Player(server.ws_url, game_id)
    assert watcher.seat is None
    empty = Player(server.ws_url, game_id, "")  # an empty token is no token: a spectator
    assert empty.seat is None
    for spectator in (watcher, empty):
        legal = before["state"]["turn"]["legal"][0]["action"]
        for action in ("roll", "keep 0 1", legal):
            answer = spectator.act(action, seq=before["seq"])
            assert answer["type"] == "error"
            assert answer["code"] == "spectator"
        spectator.send({"type": "auto", "ref": "r"})
        error = spectator.until(lambda m: m["type"] == "error")
        assert (error["code"], error["ref"]) == ("spectator", "r")
    # Bea's token does not let her play Ana's turn.
    bea = Player(server.ws_url, game_id, body["seats"][1]["token"])
    assert bea.act("keep 0 1")["code"] == "not_your_turn"
    assert _game_now(server, game_id) == before
    # A wrong token, or the token of another game, is refused before the socket opens.
    other = create(server, humans("Ana"))
    for token in ("not-the-token", other["seats"][0]["token"], body["seats"][0]["token"] + "x"):
        with pytest.raises(InvalidStatus) as refused:
            Player(server.ws_url, game_id, token)
        assert refused.value.response.status_code == 403
    assert _game_now(server, game_id) == before
    for player in (ana, bea, watcher, empty):
        player.close()


def test_the_token_can_travel_in_a_header_instead_of_the_url(server: LiveServer) -> None:
    """The web and terminal clients send the seat token in Sec-WebSocket-Protocol (proxies log
    URLs): it seats the player like `?token=`, the server answers with our subprotocol only, and a
    wrong token there is refused like one in the URL."""
    body = create(server, humans("Ana", "Bea"))
    game_id, token = body["id"], body["seats"][0]["token"]
    ana = Player(server.ws_url, game_id, token, in_header=True)
    assert ana.seat == 0
    assert ana.connection.subprotocol == "dicepoker.v2"
    response = ana.connection.response
    assert response is not None and token not in str(response.headers)
    assert ana.act("roll")["type"] == "event"
    watcher = Player(server.ws_url, game_id, None, in_header=True)
    assert (watcher.seat, watcher.connection.subprotocol) == (None, "dicepoker.v2")
    for wrong in ("not-the-token", body["seats"][1]["token"] + "x"):
        with pytest.raises(InvalidStatus) as refused:
            Player(server.ws_url, game_id, wrong, in_header=True)
        assert refused.value.response.status_code == 403
    for player in (ana, watcher):
        player.close()


# --- the WebSocket -----------------------------------------------------------------------------


def test_websocket_checks_the_origin(server: LiveServer) -> None:
    body = create(server, humans("Ana"))
    url = f"{server.ws_url}/ws/games/{body['id']}?token={body['seats'][0]['token']}"
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{server.port}.evil.example"):
        with pytest.raises(InvalidStatus) as refused:
            connect(url, origin=Origin(origin), open_timeout=10)
        assert refused.value.response.status_code == 403
    # The page's own origin, and clients that send none (terminal client, bots), connect.
    for own in (Origin(f"http://127.0.0.1:{server.port}"), None):
        with connect(url, origin=own, open_timeout=10) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"


def test_message_size_limits(server: LiveServer) -> None:
    body = create(server, humans("Ana"))
    game_id = body["id"]
    ana = Player(server.ws_url, game_id, body["seats"][0]["token"])
    ana.send(json.dumps({"type": "act", "action": "roll", "ref": "x" * 5000}))
    error = ana.until(lambda m: m["type"] == "error")
    assert error["code"] == "too_large"
    assert server.get(f"/api/games/{game_id}")["seq"] == 0
    ana.send({"type": "ping"})
    assert ana.until(lambda m: True)["type"] == "pong"  # the connection goes on
    # Far over the limit, the server closes the connection (1009: message too big) and lives on.
    ana.send("[" + "1," * 60_000 + "1]")
    with pytest.raises(ConnectionClosed) as closed:
        ana.until(lambda m: False, timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert server.get(f"/api/games/{game_id}")["seq"] == 0
    # HTTP bodies over 1 MiB get 413 before they are read.
    big = {"variant": "school", "seats": [{"kind": "human", "name": "A"}], "x": "y" * 1_100_000}
    response = server.post("/api/games", big)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"


def test_invalid_utf8_and_binary_frames_are_refused(server: LiveServer) -> None:
    body = create(server, humans("Ana"))
    game_id = body["id"]
    ana = Player(server.ws_url, game_id, body["seats"][0]["token"])
    ana.connection.send(b"\xff\xfe{}")  # a binary frame
    error = ana.until(lambda m: m["type"] == "error")
    assert error["code"] == "bad_message"
    assert_no_internals(json.dumps(error))
    # A text frame that is not UTF-8 breaks the WebSocket protocol: the server closes with 1007.
    with ana.connection.send_context():
        ana.connection.protocol.send_text(b'{"type": "ping", "x": "\xff\xfe"}')
    with pytest.raises(ConnectionClosed) as closed:
        ana.until(lambda m: False, timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
    assert_no_internals(closed.value.rcvd.reason)
    assert server.get(f"/api/games/{game_id}")["seq"] == 0


def test_websocket_rate_limit(limited: LiveServer) -> None:
    body = create(limited, humans("Ana"), address="10.0.1.1")
    game_id = body["id"]
    ana = Player(limited.ws_url, game_id, body["seats"][0]["token"])
    # A burst of WS_BURST messages passes; the next ones are refused and not processed. (The
    # bucket refills at WS_RATE a second: 15 more messages leave room for a slow machine.)
    extra = 15
    for _ in range(WS_BURST + extra):
        ana.send({"type": "ping"})
    ana.send({"type": "act", "action": "roll", "ref": "over"})
    answers = [ana.recv() for _ in range(WS_BURST + extra + 1)]
    assert answers[:WS_BURST] == [{"type": "pong"}] * WS_BURST
    refused = [a for a in answers if a["type"] == "error"]
    assert refused, answers
    assert {a["code"] for a in refused} == {"rate_limited"}
    assert answers[-1]["type"] == "error"  # the last one, the roll, was refused...
    assert limited.get(f"/api/games/{game_id}")["seq"] == 0  # ... and not played
    # Tokens come back at WS_RATE a second: after a short pause the connection plays again.
    time.sleep(2.5 / WS_RATE)  # the refill itself is what is tested here
    assert ana.act("roll")["type"] == "event"
    # A client that keeps flooding is cut off with 4429.
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(500):
            ana.send({"type": "ping"})
        ana.until(lambda m: False, timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
    assert limited.get(f"/api/games/{game_id}")["seq"] == 1
    # Each connection has its own limit: a new one plays at once.
    again = Player(limited.ws_url, game_id, body["seats"][0]["token"])
    assert again.act("keep 0")["type"] == "event"
    again.close()


def test_http_rate_limit_per_address(limited: LiveServer) -> None:
    me = {"x-forwarded-for": "10.0.2.1"}
    game = {"variant": "school", "options": {"columns": 1}, "seats": humans("Ana", None)}
    record = json.loads((GOLDEN / "school-3c-1p.json").read_text(encoding="utf-8"))
    with httpx.Client(base_url=limited.url, timeout=10) as client:
        created = client.post("/api/games", json=game, headers=me)
        assert created.status_code == 201
        game_id = created.json()["id"]
        assert client.post(f"/api/games/{game_id}/join", json={"name": "Bo"}, headers=me).is_success
        assert client.post("/api/records", json=record, headers=me).status_code == 201
        for _ in range(HTTP_BURST - 3):
            assert client.post("/api/games", json=game, headers=me).status_code == 201
        # The burst is spent: creating, joining and importing are refused alike.
        for path, payload in [
            ("/api/games", game),
            (f"/api/games/{game_id}/join", {"name": "Late"}),
            ("/api/records", record),
        ]:
            response = client.post(path, json=payload, headers=me)
            assert response.status_code == 429, (path, response.text)
            assert response.json()["error"]["code"] == "rate_limited"
            assert int(response.headers["retry-after"]) >= 1
        # Reading is not limited, and another address still creates.
        for _ in range(3 * HTTP_BURST):
            assert client.get(f"/api/games/{game_id}", headers=me).status_code == 200
        other = client.post("/api/games", json=game, headers={"x-forwarded-for": "10.0.2.2"})
        assert other.status_code == 201


def test_analysis_rate_limit_per_address(limited: LiveServer) -> None:
    """The advisor and the analyses cost the server CPU: a bucket per address of their own."""
    me = {"x-forwarded-for": "10.0.3.1"}
    record = json.loads((GOLDEN / "school-3c-1p.json").read_text(encoding="utf-8"))
    with httpx.Client(base_url=limited.url, timeout=60) as client:
        imported = client.post("/api/records", json=record, headers={"x-forwarded-for": "10.0.3.9"})
        assert imported.status_code == 201
        path = f"/api/records/{imported.json()['id']}/analysis"
        first = client.get(path, headers=me)
        assert first.status_code == 200
        for _ in range(ANALYSIS_BURST - 1):
            again = client.get(path, headers=me)
            assert again.status_code == 200
            assert again.json() == first.json()  # a stored record's analysis does not change
        refused = client.get(path, headers=me)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
        # Reading the record itself is not limited, and another address still asks.
        assert client.get(f"/api/records/{imported.json()['id']}", headers=me).status_code == 200
        assert client.get(path, headers={"x-forwarded-for": "10.0.3.2"}).status_code == 200


def test_unknown_routes_and_methods_answer_in_the_error_shape(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        missing = client.get("/api/no/such/thing")
        assert missing.status_code == 404
        assert missing.json() == {"error": {"code": "not_found", "message": "no such page"}}
        wrong = client.delete("/api/variants")
        assert wrong.status_code == 405
        assert wrong.json()["error"]["code"] == "method_not_allowed"
        assert "GET" in wrong.headers["allow"]
        assert "content-security-policy" in wrong.headers


def test_record_import_limits(limited: LiveServer, server: LiveServer) -> None:
    record = json.loads((GOLDEN / "school-3c-2p.json").read_text(encoding="utf-8"))
    assert len(record["turns"]) > RECORD_TURNS
    with httpx.Client(base_url=limited.url, timeout=10) as client:
        response = client.post("/api/records", json=record, headers={"x-forwarded-for": "10.0.3.1"})
        assert response.status_code == 422
        error = response.json()["error"]
        assert error["code"] == "bad_record"
        assert f"at most {RECORD_TURNS} turns" in error["message"]
        short = {**record, "turns": record["turns"][:RECORD_TURNS]}
        response = client.post("/api/records", json=short, headers={"x-forwarded-for": "10.0.3.2"})
        assert response.status_code == 201, response.text
        padded = {**short, "note": "x" * RECORD_BYTES}
        response = client.post("/api/records", json=padded, headers={"x-forwarded-for": "10.0.3.3"})
        assert response.status_code == 413
        assert response.json()["error"] == {
            "code": "too_large",
            "message": f"a record is at most {RECORD_BYTES} bytes",
        }
    # The defaults: 2,000 turns and 1 MiB.
    many = {**record, "turns": record["turns"] * 23}
    response = server.post("/api/records", many)
    assert response.status_code == 422
    assert "at most 2000 turns" in response.json()["error"]["message"]
    response = server.post("/api/records", {**record, "note": "x" * (1024 * 1024)})
    assert response.status_code == 413
