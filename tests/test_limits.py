"""The limits of server/runtime/limits.py on the test Redis, and the HTTP defences of security.py
and origin.py on the ASGI app itself: shared token buckets, the WebSocket cap per address (and
what a crashed process leaves), the fallback when Redis is out of reach, the scheme in the Origin
checks, HSTS over https only, and chunked bodies over the limit. The same against real server
processes: tests/test_limits_live.py."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dicepoker.server.community.accounts import COOKIE
from dicepoker.server.http.origin import CookieOrigin, origin_matches
from dicepoker.server.http.security import HSTS, BodyLimit, Message, Scope, SecurityHeaders
from dicepoker.server.runtime.limits import SOCKETS, TIMEOUT_S, RateLimiter, SharedRedis, SocketCap
from dicepoker.site import Settings, create_app
from live_server import nowhere_port, redis_url
from tcp_proxy import TcpProxy

T = TypeVar("T")


def run(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(work())


def unique() -> str:
    """A key no other test (or earlier run) has used: Redis outlives the tests."""
    return f"test-{uuid.uuid4().hex}"


# --- shared token buckets ----------------------------------------------------------------------


def test_two_processes_share_one_bucket_with_the_same_rate_burst_and_wait() -> None:
    async def work() -> None:
        first, second = SharedRedis(redis_url()), SharedRedis(redis_url())
        name, key = unique(), "10.0.0.1"
        one = RateLimiter(name, 0.5, 4, first)
        two = RateLimiter(name, 0.5, 4, second)
        try:
            # Alternating between the two "processes": four at once between them, not eight.
            answers = [await (one if i % 2 else two).check(key) for i in range(4)]
            assert answers == [None] * 4
            for limiter in (one, two):
                wait = await limiter.check(key)
                assert wait is not None and 0 < wait <= 2.0  # one token every 2 s
            assert await one.check("10.0.0.2") is None  # another address: its own bucket
            assert not one.local.buckets and not two.local.buckets  # nothing kept locally
        finally:
            await first.close()
            await second.close()

    run(work)


def test_a_token_given_back_is_taken_again_and_concurrent_takes_never_pass_the_burst() -> None:
    """A limit of failures takes before the attempt and gives back what succeeded: the take is
    atomic, so however many attempts arrive at once, at most the burst goes ahead."""

    async def work() -> None:
        shared = SharedRedis(redis_url())
        failures = RateLimiter(unique(), 0.01, 3, shared)
        try:
            await failures.give_back("bea")  # to a full bucket: nothing is kept or made
            assert not await shared.client.exists(f"dicepoker:rate:{failures.name}:bea")
            for _ in range(5):  # each attempt succeeds and gives its token back
                assert await failures.check("ana") is None
                await failures.give_back("ana")
            waits = await asyncio.gather(*(failures.check("ana") for _ in range(50)))
            assert waits.count(None) == 3
            assert all(wait is not None and 50 < wait <= 100 for wait in waits if wait)
            await failures.give_back("ana")
            assert await failures.check("ana") is None
            assert await failures.check("ana") is not None
            assert not failures.local.buckets  # all of it in Redis
        finally:
            await shared.close()

    run(work)


def test_a_bucket_expires_from_redis_once_it_would_be_full_again() -> None:
    async def work() -> None:
        shared = SharedRedis(redis_url())
        name = unique()
        limiter = RateLimiter(name, 2.0, 3, shared)
        try:
            await limiter.check("k")
            ttl = await shared.client.pttl(f"dicepoker:rate:{name}:k")
            assert 0 < ttl <= 1500  # half a second to refill one token, plus a second
        finally:
            await shared.close()

    run(work)


def test_redis_out_of_reach_falls_back_to_the_process_buckets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def work(port: int) -> None:
        shared = SharedRedis(f"redis://127.0.0.1:{port}/0")  # nothing listens there
        limiter = RateLimiter(unique(), 0.01, 2, shared)
        try:
            assert await limiter.check("a") is None
            assert await limiter.check("a") is None
            wait = await limiter.check("a")
            assert wait is not None and wait > 50
            await limiter.give_back("a")  # to the process's own bucket too
            assert await limiter.check("a") is None
        finally:
            await shared.close()

    with caplog.at_level(logging.WARNING, "dicepoker.server"), nowhere_port() as port:
        run(lambda: work(port))
    said = [r.getMessage() for r in caplog.records if "shared limits" in r.getMessage()]
    assert len(said) == 1  # once per outage, not once per request
    assert "each process limits on its own" in said[0]


def test_a_hung_redis_is_given_up_on_within_the_timeout() -> None:
    target = urlsplit(redis_url())
    assert target.hostname and target.port

    async def work(port: int) -> float:
        shared = SharedRedis(f"redis://127.0.0.1:{port}/0")
        limiter = RateLimiter(unique(), 1.0, 1, shared)
        try:
            started = time.monotonic()
            assert await limiter.check("a") is None  # the local bucket answered
            spent = time.monotonic() - started
            assert await limiter.check("a") is not None  # and keeps answering, at once
            return spent
        finally:
            await shared.close()

    with TcpProxy(target.hostname, target.port) as proxy:
        proxy.freeze()
        spent = asyncio.run(work(proxy.port))
    assert spent < TIMEOUT_S * 2 + 1


# --- the WebSocket cap per address ------------------------------------------------------------


def test_the_socket_cap_holds_across_processes_and_a_closed_socket_frees_its_place() -> None:
    async def work() -> None:
        first, second = SharedRedis(redis_url()), SharedRedis(redis_url())
        one, two = SocketCap(3, first), SocketCap(3, second)
        address = unique()
        try:
            slots = [await one.open(address), await two.open(address), await one.open(address)]
            assert all(slot is not None for slot in slots)
            assert await two.open(address) is None
            assert await one.open(address) is None
            assert await two.open("elsewhere-" + address) is not None
            slot = slots[0]
            assert slot is not None
            await one.close(slot)
            assert await two.open(address) is not None
            assert await one.open(address) is None
        finally:
            await one.stop()
            await two.stop()
            await first.close()
            await second.close()

    run(work)


def test_a_crashed_process_s_sockets_stop_counting_and_a_live_one_s_keep_counting() -> None:
    async def work() -> None:
        shared = [SharedRedis(redis_url()) for _ in range(3)]
        crashed, alive, other = (SocketCap(2, s, ttl_ms=600) for s in shared)
        lost, kept = unique(), unique()
        try:
            assert await crashed.open(lost) is not None
            assert await crashed.open(lost) is not None
            assert await alive.open(kept) is not None
            assert await alive.open(kept) is not None
            await crashed.stop()  # it died: nobody announces its sockets any more
            (member,) = list(alive.held[kept])[:1]
            first = await shared[1].client.zscore(SOCKETS + kept, member)
            assert first is not None
            deadline = time.monotonic() + 10
            while await other.open(lost) is None:  # until the crashed holder's expire
                assert time.monotonic() < deadline, "a crashed process's sockets still count"
                await asyncio.sleep(0.05)
            # The live holder announced its own again meanwhile: they still count.
            while (await shared[1].client.zscore(SOCKETS + kept, member) or 0) <= first + 100:
                assert time.monotonic() < deadline, "the live holder did not announce again"
                await asyncio.sleep(0.05)
            assert await other.open(kept) is None
        finally:
            for cap in (alive, other):
                await cap.stop()
            for each in shared:
                await each.close()

    run(work)


def test_without_redis_or_out_of_its_reach_the_cap_holds_per_process() -> None:
    async def work(cap: SocketCap) -> None:
        slots = [await cap.open("a") for _ in range(2)]
        assert all(slot is not None for slot in slots)
        assert await cap.open("a") is None
        assert await cap.open("b") is not None
        slot = slots[0]
        assert slot is not None
        await cap.close(slot)
        assert await cap.open("a") is not None
        await cap.stop()

    run(lambda: work(SocketCap(2, None)))
    with nowhere_port() as port:
        down = SharedRedis(f"redis://127.0.0.1:{port}/0")
        run(lambda: work(SocketCap(2, down)))
    uncapped = SocketCap(0, None)
    assert all(run(lambda: uncapped.open("a")) is not None for _ in range(100))


# --- Origin, HSTS and bodies on the ASGI app ---------------------------------------------------


async def call(app: Any, scope: Scope, bodies: list[bytes] | None = None) -> list[Message]:
    """Run an ASGI app on one HTTP request (its body in `bodies`, chunked); what it sent."""
    sent: list[Message] = []
    pending = list(bodies or [b""])

    async def receive() -> Message:
        if pending:
            body = pending.pop(0)
            return {"type": "http.request", "body": body, "more_body": bool(pending)}
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


async def ok(scope: Scope, receive: Any, send: Any) -> None:
    """A stand-in app: reads the whole body, answers 200 with its length."""
    size = 0
    while True:
        message = await receive()
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": str(size).encode()})


def scope_of(scheme: str, headers: dict[str, str], method: str = "POST") -> Scope:
    return {
        "type": "http",
        "scheme": scheme,
        "method": method,
        "path": "/api/me/password",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }


@pytest.mark.parametrize(
    ("scheme", "origin", "allowed"),
    [
        ("https", "https://dice.example", True),
        ("https", "http://dice.example", False),
        ("http", "http://dice.example", True),
        ("http", "https://dice.example", False),
        ("https", "https://evil.example", False),
    ],
)
def test_the_cookie_origin_check_compares_the_scheme(
    scheme: str, origin: str, allowed: bool
) -> None:
    for header in ("origin", "referer"):
        value = origin if header == "origin" else origin + "/account"
        headers = {"host": "dice.example", "cookie": f"{COOKIE}=abc", header: value}
        sent = run(lambda h=headers: call(CookieOrigin(ok), scope_of(scheme, h)))  # type: ignore[misc]
        status = sent[0]["status"]
        assert status == (200 if allowed else 403), (scheme, header, value)
        if not allowed:
            assert json.loads(sent[1]["body"])["error"]["code"] == "bad_origin"


def test_the_socket_origin_reads_ws_as_http_and_wss_as_https() -> None:
    assert origin_matches("https://dice.example", "dice.example", "wss")
    assert origin_matches("http://dice.example", "dice.example", "ws")
    assert not origin_matches("http://dice.example", "dice.example", "wss")
    assert not origin_matches("https://dice.example", "dice.example", "ws")
    assert not origin_matches("null", "dice.example", "ws")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = str(Path(tmp_path_factory.mktemp("origin")) / "games.db")
    app = create_app(Settings(database=database, bot_workers=0, win_probability=False))
    with TestClient(app) as test_client:
        yield test_client


@pytest.mark.parametrize(
    ("url", "origin", "code"),
    [
        ("wss://dice.example/ws/games/nope", "http://dice.example", 4403),
        ("wss://dice.example/ws/games/nope", "https://dice.example", 4404),
        ("ws://dice.example/ws/games/nope", "https://dice.example", 4403),
        ("ws://dice.example/ws/games/nope", "http://dice.example", 4404),
    ],
)
def test_the_game_socket_refuses_a_page_of_the_other_scheme(
    client: TestClient, url: str, origin: str, code: int
) -> None:
    """4404 (no such game) shows the Origin passed; 4403 that it was refused."""
    headers = {"origin": origin, "host": "dice.example"}
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(url, headers=headers),
    ):
        pass
    assert refused.value.code == code


def test_hsts_is_sent_over_https_and_never_over_http(client: TestClient) -> None:
    for scheme in ("http", "https"):
        sent = run(lambda s=scheme: call(SecurityHeaders(ok), scope_of(s, {}, "GET")))  # type: ignore[misc]
        headers = dict(sent[0]["headers"])
        assert (HSTS[0].encode() in headers) == (scheme == "https")
        if scheme == "https":
            assert headers[HSTS[0].encode()] == b"max-age=63072000; includeSubDomains"
    # Through the whole app too (TestClient's scheme is its base URL's).
    assert client.get("https://dice.example/api/variants").headers.get(HSTS[0]) == HSTS[1]
    assert HSTS[0] not in client.get("http://dice.example/api/variants").headers


def test_a_chunked_body_over_the_limit_is_refused_413_and_one_within_it_reaches_the_app() -> None:
    limited = BodyLimit(ok, limit=1000)
    chunked = {"transfer-encoding": "chunked"}
    over = run(lambda: call(limited, scope_of("http", chunked), [b"x" * 400] * 3))
    assert over[0]["status"] == 413
    body = json.loads(over[1]["body"])
    assert body == {"error": {"code": "too_large", "message": "request body too large"}}
    within = run(lambda: call(limited, scope_of("http", chunked), [b"x" * 400, b"x" * 600]))
    assert (within[0]["status"], within[1]["body"]) == (200, b"1000")
    declared = run(lambda: call(limited, scope_of("http", {"content-length": "1001"}), [b""]))
    assert declared[0]["status"] == 413
