"""The limits against real server processes (docs/security.md, docs/deploy.md): two processes on
PostgreSQL + Redis share one rate budget and one WebSocket cap per address; half-sent request
headers are closed within `--header-timeout`; a chunked body over the limit is answered 413; a
server whose Redis is gone limits on its own and never answers 500.

Each test speaks from a loopback address of its own (127.x.y.z, as the client's source address):
the shared budgets live in Redis, which outlives the tests, and no other test spends them."""

from __future__ import annotations

import http.client
import json
import random
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from live_server import NO_LIMITS, LiveServer, fresh_postgres_database, redis_url
from tcp_proxy import TcpProxy

SHARED_LIMITS = (*NO_LIMITS, "--http-rate", "0.01", "--http-burst", "4", "--ws-connections", "3")
GAME = {"variant": "school", "options": {"columns": 1}, "seats": [{"kind": "human", "name": "A"}]}


def loopback() -> str:
    """A loopback address of this test's own (any 127.0.0.0/8 address reaches the server)."""
    return "127." + ".".join(str(random.randint(1, 254)) for _ in range(3))


def client(server: LiveServer, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, transport=transport, timeout=10)


@pytest.fixture
def limited_pair() -> Iterator[tuple[LiveServer, LiveServer]]:
    database = fresh_postgres_database()
    first = LiveServer(database, redis=redis_url(), limits=SHARED_LIMITS).start()
    try:
        second = LiveServer(database, redis=redis_url(), limits=SHARED_LIMITS).start()
    except BaseException:
        first.stop()
        raise
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def test_the_rate_limit_holds_across_processes(limited_pair: tuple[LiveServer, LiveServer]) -> None:
    address = loopback()
    clients = [client(server, address) for server in limited_pair]
    try:
        answers = [clients[i % 2].post("/api/games", json=GAME) for i in range(6)]
        # Four at once for the address between both processes (each alone would allow four).
        assert [answer.status_code for answer in answers] == [201] * 4 + [429] * 2
        for refused in answers[4:]:
            assert refused.json()["error"]["code"] == "rate_limited"
            assert 1 <= int(refused.headers["retry-after"]) <= 100  # one every 100 s
        with client(limited_pair[1], loopback()) as other:
            assert other.post("/api/games", json=GAME).status_code == 201
    finally:
        for each in clients:
            each.close()


def open_socket(
    stack: ExitStack, server: LiveServer, game_id: str, address: str
) -> ClientConnection | None:
    """A spectator's connection from `address` (closed with `stack`), or None when the server
    closed it as over the cap (1013, with its reason)."""
    url = f"{server.ws_url}/ws/games/{game_id}"
    ws = stack.enter_context(connect(url, source_address=(address, 0), open_timeout=10))
    try:
        first = json.loads(ws.recv(timeout=10))
    except ConnectionClosed as closed:
        assert closed.rcvd is not None
        assert closed.rcvd.code == 1013
        assert closed.rcvd.reason == "too many connections from this address"
        return None
    assert first["type"] == "welcome"
    return ws


def test_open_sockets_are_capped_per_address_across_processes(
    limited_pair: tuple[LiveServer, LiveServer],
) -> None:
    with client(limited_pair[0], loopback()) as maker:
        game = maker.post("/api/games", json=GAME).json()["id"]
    address = loopback()
    opened: list[ClientConnection] = []
    first, second = limited_pair
    with ExitStack() as stack:
        for attempt in range(10):  # open until refused, alternating between the processes
            ws = open_socket(stack, limited_pair[attempt % 2], game, address)
            if ws is None:
                break
            opened.append(ws)
        assert len(opened) == 3
        assert open_socket(stack, first, game, address) is None
        assert open_socket(stack, second, game, address) is None
        # Another address has a cap of its own.
        assert open_socket(stack, second, game, loopback()) is not None
        opened.pop(0).close()  # a place is free once the server has seen it close
        deadline = time.monotonic() + 10
        while (ws := open_socket(stack, second, game, address)) is None:
            assert time.monotonic() < deadline, "the closed socket's place never came free"
        assert open_socket(stack, first, game, address) is None


@pytest.fixture(params=["one process", "two workers"])
def quick_deadline(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[LiveServer]:
    """A server that gives a connection 1 s for its headers, on its own and with --workers 2
    (the protocol travels to the spawned processes)."""
    if request.param == "one process":
        live = LiveServer(str(tmp_path / "games.db"), options=("--header-timeout", "1"))
    else:
        live = LiveServer(
            fresh_postgres_database(),
            redis=redis_url(),
            workers=2,
            options=("--header-timeout", "1"),
        )
    live.start()
    yield live
    live.stop()


def test_half_sent_headers_are_closed_within_the_timeout(quick_deadline: LiveServer) -> None:
    server = quick_deadline
    partial = b"GET /api/variants HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slo"
    started = time.monotonic()
    sockets = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(60)]
    try:
        for sock in sockets[:50]:  # half a request; the other ten send nothing at all
            sock.sendall(partial)
        # Meanwhile whole requests are answered.
        with httpx.Client(base_url=server.url, timeout=10) as whole:
            assert all(whole.get("/api/variants").status_code == 200 for _ in range(3))
        for sock in sockets:
            sock.settimeout(10)  # a bound on the wait, not a timing assumption
            assert sock.recv(1024) == b""  # closed by the server (EOF), nothing answered
        assert time.monotonic() - started < 1 + 5  # the deadline, with room for a slow machine
    finally:
        for sock in sockets:
            sock.close()
    with socket.create_connection(("127.0.0.1", server.port)) as huge:
        huge.settimeout(10)
        huge.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 100_000)
        answer = b""
        while chunk := huge.recv(4096):  # until the server closes the connection
            answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 431 ") and b"content-type: application/json" in head
        assert json.loads(body) == {
            "error": {"code": "headers_too_large", "message": "request headers larger than 64 KiB"}
        }


def test_a_kept_alive_connection_serves_request_after_request(quick_deadline: LiveServer) -> None:
    """The header deadline runs per request: one connection carries many requests, with bodies
    and without, each answered in turn (none taken for a slow one's headers, none closed)."""
    connection = http.client.HTTPConnection("127.0.0.1", quick_deadline.port, timeout=10)
    connection.connect()
    opened = connection.sock
    statuses = []
    try:
        for i in range(40):
            if i % 4 == 3:
                connection.request(
                    "POST",
                    "/api/games",
                    body=json.dumps(GAME),
                    headers={"content-type": "application/json"},
                )
            else:
                connection.request("GET", "/api/variants")
            answer = connection.getresponse()
            answer.read()
            statuses.append(answer.status)
            assert connection.sock is opened  # still the first connection
    finally:
        connection.close()
    assert statuses == [200, 200, 200, 201] * 10


def test_a_chunked_body_over_the_limit_is_answered_413(server: LiveServer) -> None:
    def chunks(count: int) -> Iterator[bytes]:  # no Content-Length: sent chunked
        yield b'{"variant": "school", "seats": [{"kind": "human", "name": "A'
        for _ in range(count):
            yield b"y" * 64 * 1024
        yield b'"}]}'

    headers = {"content-type": "application/json"}
    with httpx.Client(base_url=server.url, timeout=30) as http:
        over = http.post("/api/games", content=chunks(20), headers=headers)
        assert over.status_code == 413
        assert over.json() == {"error": {"code": "too_large", "message": "request body too large"}}
        assert "content-length" not in over.request.headers
        within = http.post("/api/games", content=chunks(0), headers=headers)
        assert within.status_code == 201, within.text


def test_a_server_whose_redis_is_gone_limits_on_its_own_and_never_fails() -> None:
    target = urlsplit(redis_url())
    assert target.hostname and target.port
    with TcpProxy(target.hostname, target.port) as proxy:
        through = target._replace(netloc=f"127.0.0.1:{proxy.port}").geturl()
        limits = (*NO_LIMITS, "--http-rate", "0.01", "--http-burst", "3")
        server = LiveServer(fresh_postgres_database(), redis=through, limits=limits).start()
        try:
            address = loopback()
            with client(server, address) as http:
                assert http.post("/api/games", json=GAME).status_code == 201  # shared: 1 of 3
                proxy.cut()
                answers = [http.post("/api/games", json=GAME) for _ in range(5)]
            # Redis gone: this process's own buckets, whole again (the shared one is out of
            # reach); no request fails for it.
            assert [a.status_code for a in answers] == [201] * 3 + [429] * 2, server.log_tail()
            assert "each process limits on its own" in server.log_tail()
        finally:
            server.stop()
