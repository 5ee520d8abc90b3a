"""The client's address behind a reverse proxy (docs/deploy.md, "Behind a reverse proxy").

`dicepoker serve` believes X-Forwarded-For and X-Forwarded-Proto only from the proxies named
by `--forwarded-allow-ips` (or $FORWARDED_ALLOW_IPS); by default from none, so no local
process can name itself any client address it likes. Then Debian's nginx, running the site of
deploy/nginx.conf itself (tests/nginx_support.py), in front of two servers on PostgreSQL and
Redis (one of them `--workers 2`): a game is created and played through it over https and
secure WebSockets, and every server process sees the address nginx saw, not one the client
claims. The address a server sees is read in its JSON request log (`client`), and, without a
proxy, from the per-address rate limit it is counted under; the scheme from the HSTS header,
sent only over https, and the WebSocket's Origin check.
"""

from __future__ import annotations

import json
import ssl
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from dicepoker.cli import app
from dicepoker.record import replay
from dicepoker.serve_cli import trusted_proxies
from live_server import LiveServer, fresh_postgres_database, redis_url
from nginx_support import Nginx
from ws_client import Player

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]
GAME = {"variant": "school", "options": {"columns": 1}, "seats": HUMANS}
#: The test's client speaks from a loopback address that is not the proxy's (127.0.0.1).
CLIENT = "127.0.0.2"
SPOOFED = "10.66.0.1"


def requests_logged(server: LiveServer) -> list[dict[str, Any]]:
    """The request lines (`dicepoker.request`) of the server's JSON log so far."""
    server.log.seek(0)
    lines = []
    for raw in server.log.read().decode(errors="replace").splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # a line some library wrote without our formatter
        if isinstance(line, dict) and line.get("logger") == "dicepoker.request":
            lines.append(line)
    return lines


def logged(
    servers: list[LiveServer], match: Callable[[dict[str, Any]], bool], count: int = 1
) -> list[dict[str, Any]]:
    """Wait until `count` request lines that `match` are logged (a line is written when its
    request ends, a WebSocket's when it closes); those lines."""
    deadline = time.monotonic() + 15
    while True:
        found = [line for server in servers for line in requests_logged(server) if match(line)]
        if len(found) >= count or time.monotonic() > deadline:
            assert len(found) == count, found
            return found
        time.sleep(0.02)  # a condition wait on the logs


def with_id(request_id: str) -> Callable[[dict[str, Any]], bool]:
    return lambda line: line.get("request_id") == request_id


def at_seq(seq: int) -> Callable[[dict[str, Any]], bool]:
    return lambda message: message.get("seq") == seq


def client_of(server: LiveServer, response: httpx.Response) -> str:
    """The client address the server logged for the request that got `response`."""
    (line,) = logged([server], with_id(response.headers["x-request-id"]))
    client: str = line["client"]
    return client


# --- without a proxy ---------------------------------------------------------------------------


def test_the_trusted_proxies_are_checked_and_written_as_uvicorn_reads_them(tmp_path: Path) -> None:
    assert trusted_proxies("") == ""  # the default: no proxy is trusted
    assert trusted_proxies(" * ") == "*"
    assert trusted_proxies("127.0.0.1, ::1,10.1.2.3/8") == "127.0.0.1,::1,10.0.0.0/8"
    for wrong in ("localhost", "10.0.0.1,*", "10.0.0.300", "10.0.0.0/40"):
        result = CliRunner().invoke(
            app, ["serve", "--db", str(tmp_path / "unused.db"), "--forwarded-allow-ips", wrong]
        )
        assert result.exit_code == 1, result.output
        assert "is not an IP address or network" in result.output
        assert "Traceback" not in result.output and "ValueError" not in result.output


@pytest.fixture
def servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[LiveServer]]:
    """A server started without trusting any proxy (whatever this environment says), and one
    told by $FORWARDED_ALLOW_IPS to trust loopback; two games an address at once."""
    limits = ("--http-rate", "0.01", "--http-burst", "2")
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    plain = LiveServer(str(tmp_path / "plain.db"), limits=limits, options=("--log-json",))
    trusting = LiveServer(str(tmp_path / "trusting.db"), limits=limits, options=("--log-json",))
    try:
        plain.start()
        monkeypatch.setenv("FORWARDED_ALLOW_IPS", "127.0.0.1")
        trusting.start()
        yield [plain, trusting]
    finally:
        plain.stop()
        trusting.stop()


def test_a_forwarded_address_is_believed_only_from_a_trusted_proxy(
    servers: list[LiveServer],
) -> None:
    plain, trusting = servers

    def create(server: LiveServer, address: str) -> httpx.Response:
        return httpx.post(
            server.url + "/api/games",
            json=GAME,
            headers={"x-forwarded-for": address, "x-forwarded-proto": "https"},
            timeout=10,
        )

    for server in servers:
        for _ in range(2):
            created = create(server, SPOOFED)
            assert created.status_code == 201
            # The scheme too: only the trusting server believes the request came by https
            # (and asks browsers to keep to it).
            assert ("strict-transport-security" in created.headers) == (server is trusting)
    # Without a trusted proxy the header changes nothing: every request counted under the
    # connection's own address, whose two games are spent, whatever address it claims.
    refused = create(plain, "10.66.0.2")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert client_of(plain, refused) == "127.0.0.1"
    assert {line["client"] for line in requests_logged(plain)} == {"127.0.0.1"}
    # From a trusted proxy the header names the client: another address has games left.
    other = create(trusting, "10.66.0.2")
    assert other.status_code == 201
    assert client_of(trusting, other) == "10.66.0.2"
    assert create(trusting, SPOOFED).status_code == 429


# --- behind nginx ------------------------------------------------------------------------------


@pytest.fixture
def behind_nginx(tmp_path: Path) -> Iterator[tuple[Nginx, list[LiveServer]]]:
    """nginx (deploy/nginx.conf) in front of a `--workers 2` server and a one-process server,
    all on one PostgreSQL database and one Redis, each trusting the proxy on 127.0.0.1."""
    database, redis = fresh_postgres_database(), redis_url()
    options = ("--forwarded-allow-ips", "127.0.0.1", "--log-json")
    upstreams = [
        LiveServer(database, redis=redis, workers=2, options=options),
        LiveServer(database, redis=redis, options=options),
    ]
    nginx = Nginx(tmp_path, (upstreams[0].port, upstreams[1].port))
    try:
        for server in upstreams:
            server.start()
        nginx.start()
        yield nginx, upstreams
    finally:
        try:
            nginx.stop()
        finally:
            for server in upstreams:
                server.stop()


def test_a_game_through_nginx_sees_the_address_nginx_saw(
    behind_nginx: tuple[Nginx, list[LiveServer]],
) -> None:
    nginx, upstreams = behind_nginx
    trust = ssl.create_default_context(cafile=str(nginx.cert))
    transport = httpx.HTTPTransport(verify=trust, local_address=CLIENT)
    spoof = {"x-forwarded-for": SPOOFED}
    with httpx.Client(base_url=nginx.https_url, transport=transport, timeout=10) as client:
        # Plain http is sent to https; the figures are not served to the public side.
        redirect = httpx.get(f"http://127.0.0.1:{nginx.http_port}/lobby", timeout=10)
        assert redirect.status_code == 301
        assert redirect.headers["location"] == "https://127.0.0.1/lobby"
        assert client.get("/metrics").status_code == 404
        created = client.post("/api/games", json=GAME, headers=spoof)
        assert created.status_code == 201, created.text
        assert "strict-transport-security" in created.headers  # X-Forwarded-Proto believed
        body = created.json()
        reads = [client.get(f"/api/games/{body['id']}", headers=spoof) for _ in range(4)]
        assert all(read.status_code == 200 for read in reads)
    # Every request reached a server process with nginx's request id and the address nginx
    # saw, never the one the client claimed; nginx shared them out between the two servers.
    for response in (created, *reads):
        request_id = response.headers["x-request-id"]
        assert len(request_id) == 32  # nginx's $request_id, replacing any the client sent
        (line,) = logged(upstreams, with_id(request_id))
        assert line["client"] == CLIENT
    for server in upstreams:
        assert any(line["path"].startswith("/api/games") for line in requests_logged(server))

    # The game, played to its end over secure WebSockets through nginx, each seat's token in
    # the header and the page's Origin, as a browser sends them (the Origin check compares its
    # scheme with the one nginx's X-Forwarded-Proto gave).
    socket: dict[str, Any] = {
        "ssl": trust,
        "source_address": (CLIENT, 0),
        "origin": nginx.https_url,
    }
    wss = nginx.https_url.replace("https://", "wss://")
    seats = body["seats"]
    players = [Player(wss, body["id"], seat["token"], in_header=True, **socket) for seat in seats]
    try:
        while not players[0].state["finished"]:
            mover = players[players[0].state["turn"]["seat"]]
            mover.play_turn()
            other = players[1 - players.index(mover)]
            other.until(at_seq(mover.seq))
            assert other.state == mover.state
        final = players[1].state
        assert final["finished"]
    finally:
        for player in players:
            player.close()
    assert replay(upstreams[1].get(f"/api/games/{body['id']}/record")).state.finished
    # Two more sockets of the game: a watcher's, and a seat's with its token in the query
    # (which the hash leaves out). nginx sent all four to one server, by the game's path,
    # where it shares other requests out (as it did the requests above).
    for token in (None, seats[0]["token"]):
        Player(wss, body["id"], token, **socket).close()
    path = f"/ws/games/{body['id']}"
    sockets = logged(upstreams, lambda line: line["method"] == "WS" and line["path"] == path, 4)
    assert [(line["status"], line["client"]) for line in sockets] == [(101, CLIENT)] * 4
    serving = [
        server
        for server in upstreams
        if any(line["path"] == path for line in requests_logged(server))
    ]
    assert len(serving) == 1
