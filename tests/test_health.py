"""Health and metrics (docs/deploy.md, "Health and metrics"): `/livez`, `/readyz` on SQLite and
on PostgreSQL + Redis (with each dependency hung, then down), `/metrics` off by default and
behind its token when on, its figures after real play over the WebSocket, request ids, and the
JSON logs of `--log-json`."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import make_url
from websockets.sync.client import connect

from dicepoker.engine import GameState, forced_action
from dicepoker.record import replay
from dicepoker.server.runtime.logs import JsonFormatter
from dicepoker.server.settings import Settings
from dicepoker.site import create_app
from live_server import LiveServer, fresh_postgres_database, nowhere_port, redis_url
from tcp_proxy import TcpProxy
from ws_client import Player

TOKEN = "scrape-me-7f3a"
GENERATED = re.compile(r"[0-9a-f]{32}")
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture(scope="module")
def metered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server with its metrics on, behind a token, logging JSON."""
    options = ("--metrics", "--metrics-token", TOKEN, "--log-json")
    database = str(tmp_path_factory.mktemp("metered") / "games.db")
    live = LiveServer(database, options=options).start()
    yield live
    live.stop()


def probe(server: LiveServer, path: str) -> tuple[int, Any]:
    """A probe's status and JSON body (the client gives up after 10 s: a probe must not hang)."""
    response = httpx.get(server.url + path, timeout=10.0)
    assert response.headers["cache-control"] == "no-store"
    return response.status_code, response.json()


def scrape(server: LiveServer) -> Samples:
    """Every sample of `/metrics`, read with Prometheus's own parser, by name and labels."""
    response = httpx.get(
        server.url + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10.0
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Poll `condition` until it holds (a condition wait, not a sleep)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not in {timeout} s: {what}")
        time.sleep(0.02)


def create(server: LiveServer, seats: list[dict[str, Any]]) -> dict[str, Any]:
    response = server.post(
        "/api/games", {"variant": "school", "options": {"columns": 1}, "seats": seats}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


# --- probes -----------------------------------------------------------------------------------


def test_probes_answer_on_sqlite_and_the_metrics_are_off_by_default(server: LiveServer) -> None:
    assert probe(server, "/livez") == (200, {"live": True})
    assert probe(server, "/readyz") == (200, {"ready": True, "failing": []})
    # Not served unless asked for: found nowhere, in the API's error shape (a machine's path).
    response = httpx.get(server.url + "/metrics", timeout=10.0)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_readyz_names_a_database_that_refuses_connections(tmp_path: Any) -> None:
    # An app whose PostgreSQL is a closed port (its lifespan is not run: it could not start).
    with nowhere_port() as port:
        nowhere = f"postgresql+asyncpg://dicepoker@127.0.0.1:{port}/nowhere"
        client = TestClient(create_app(Settings(database=nowhere, bot_workers=0)))
        assert client.get("/livez").json() == {"live": True}
        answer = client.get("/readyz")
        assert answer.status_code == 503
        assert answer.json() == {"ready": False, "failing": ["database"]}


def test_readyz_on_postgresql_and_redis_names_what_hangs_and_what_is_down() -> None:
    database = make_url(fresh_postgres_database())
    redis = urlsplit(redis_url())
    assert database.host and database.port and redis.hostname and redis.port
    with (
        TcpProxy(database.host, database.port) as db,
        TcpProxy(redis.hostname, redis.port) as cache,
    ):
        userinfo = redis.netloc.rpartition("@")[0]
        through = f"{userinfo}@" if userinfo else ""
        live = LiveServer(
            database.set(host="127.0.0.1", port=db.port).render_as_string(hide_password=False),
            redis=redis._replace(netloc=f"{through}127.0.0.1:{cache.port}").geturl(),
        ).start()
        try:
            assert probe(live, "/readyz") == (200, {"ready": True, "failing": []})
            # Both hang (connections open, no answer): the probe still answers, naming both.
            db.freeze()
            cache.freeze()
            assert probe(live, "/readyz") == (
                503,
                {"ready": False, "failing": ["database", "redis"]},
            )
            db.thaw()
            cache.thaw()
            assert probe(live, "/readyz") == (200, {"ready": True, "failing": []})
            # Down (connections closed, new ones refused), one after the other.
            db.cut()
            assert probe(live, "/readyz") == (503, {"ready": False, "failing": ["database"]})
            cache.cut()
            assert probe(live, "/readyz") == (
                503,
                {"ready": False, "failing": ["database", "redis"]},
            )
            assert probe(live, "/livez") == (200, {"live": True})  # alive all the same
        finally:
            db.cut()
            cache.cut()
            live.stop()


# --- metrics ----------------------------------------------------------------------------------


def test_the_metrics_answer_only_to_their_token(metered: LiveServer) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer not-the-token"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": f"Bearer {TOKEN}x"},
    ):
        refused = httpx.get(metered.url + "/metrics", headers=headers, timeout=10.0)
        assert refused.status_code == 401, headers
        assert refused.headers["www-authenticate"].startswith("Bearer")
        assert "dicepoker_" not in refused.text
    samples = scrape(metered)
    assert value(samples, "dicepoker_websocket_connections") >= 0
    # Every status is a fixed label, exposed even when no game has it (a dashboard's series
    # exist from the start).
    statuses = {dict(labels)["status"] for name, labels in samples if name == "dicepoker_games"}
    assert statuses >= {"open", "running", "finished", "abandoned"}


def test_the_metrics_count_what_the_server_did(metered: LiveServer) -> None:
    before = scrape(metered)
    body = create(metered, [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}])
    tokens = [seat["token"] for seat in body["seats"]]
    ana = Player(metered.ws_url, body["id"], tokens[0])
    bea = Player(metered.ws_url, body["id"], tokens[1])
    watcher = Player(metered.ws_url, body["id"])
    try:
        playing = scrape(metered)
        sockets = value(before, "dicepoker_websocket_connections")
        assert value(playing, "dicepoker_websocket_connections") == sockets + 3
        assert value(playing, "dicepoker_games", status="running") >= 1
        # Two intents accepted, and one refusal of each of four kinds.
        assert ana.act("roll", ana.seq)["type"] == "event"
        assert ana.act("roll", 0)["code"] == "stale"
        assert bea.act("roll")["code"] == "not_your_turn"
        assert watcher.act("roll")["code"] == "spectator"
        watcher.send("not json")
        assert watcher.until(lambda m: m["type"] == "error")["code"] == "bad_message"
        best = max(ana.state["turn"]["legal"], key=lambda option: option["gain"])
        assert ana.act(best["action"], ana.seq)["type"] == "event"
        played = scrape(metered)
    finally:
        for player in (ana, bea, watcher):
            player.close()

    def grew(name: str, samples: Samples = played, **labels: str) -> float:
        return value(samples, name, **labels) - value(before, name, **labels)

    refusals = {
        code: grew("dicepoker_refusals_total", code=code)
        for code in ("stale", "not_your_turn", "spectator", "bad_message")
    }
    assert refusals == {"stale": 1, "not_your_turn": 1, "spectator": 1, "bad_message": 1}
    assert grew("dicepoker_moves_accepted_total") == 2
    assert grew("dicepoker_intent_broadcast_seconds_count") == 2
    assert grew("dicepoker_intent_broadcast_seconds_sum") > 0
    assert 1 <= grew("dicepoker_db_commit_seconds_count") <= 2  # a commit may hold several
    assert grew("dicepoker_db_commit_seconds_sum") > 0
    wait_until(
        lambda: value(scrape(metered), "dicepoker_websocket_connections") == sockets,
        "the closed connections are no longer counted",
    )

    # A game of bots: every event is counted as a move, and every decision timed.
    bots = create(metered, [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "random"}])
    game = metered.wait_for(f"/api/games/{bots['id']}", lambda g: g["status"] == "finished")
    after = scrape(metered)
    assert grew("dicepoker_moves_accepted_total", after) == 2 + game["seq"]
    # One decision a move, except where the engine left a single action (a turn's first throw).
    chosen: list[GameState] = []
    replay(
        metered.get(f"/api/games/{bots['id']}/record"),
        lambda state, _action: chosen.append(state) if forced_action(state) is None else None,
    )
    assert 0 < len(chosen) < game["seq"]
    assert grew("dicepoker_bot_decision_seconds_count", after) == len(chosen)
    assert grew("dicepoker_bot_decision_seconds_sum", after) > 0
    assert value(after, "process_start_time_seconds") > 0  # the process's own figures too
    # The event loop's lag is timed all along (a tick every LAG_TICK while the bots played).
    assert grew("dicepoker_event_loop_lag_seconds_count", after) >= 1
    # So are the collector's pauses: a game's allocations make young collections.
    assert grew("dicepoker_gc_pause_seconds_count", after, generation="0") >= 1
    assert grew("dicepoker_gc_pause_seconds_sum", after, generation="0") > 0


def test_the_collectors_pauses_are_timed_while_the_loop_is_watched() -> None:
    """Each collection is timed by generation from the collector's own callbacks, from
    `watch_loop` to `close`, and closing lets go of the callback (several apps in one process)."""
    import gc

    from dicepoker.server.runtime.metrics import Metrics

    metrics = Metrics()

    def full_collections() -> float:
        samples = {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(metrics.exposition().decode())
            for sample in family.samples
        }
        return value(samples, "dicepoker_gc_pause_seconds_count", generation="2")

    async def watched() -> None:
        metrics.watch_loop()
        gc.collect()
        gc.collect()
        await metrics.close()

    gc.collect()  # before watching: not counted
    asyncio.run(watched())
    assert full_collections() == 2
    assert metrics._collected not in gc.callbacks
    gc.collect()  # after closing: not counted
    assert full_collections() == 2


# --- request ids and JSON logs ----------------------------------------------------------------


def test_request_ids_are_taken_when_sane_and_made_otherwise(server: LiveServer) -> None:
    def echoed(**headers: str) -> str:
        response = httpx.get(server.url + "/livez", headers=headers, timeout=10.0)
        return response.headers["x-request-id"]

    assert echoed(**{"X-Request-ID": "edge-7f3a.1"}) == "edge-7f3a.1"
    for insane in ("two words", "x" * 129, 'quote"d', ""):
        assert GENERATED.fullmatch(echoed(**{"X-Request-ID": insane})), insane
    first, second = echoed(), echoed()
    assert GENERATED.fullmatch(first) and GENERATED.fullmatch(second) and first != second
    # Errors carry it too, and so does a WebSocket's handshake.
    missing = httpx.get(server.url + "/api/games/nope", headers={"X-Request-ID": "e-1"})
    assert missing.status_code == 404 and missing.headers["x-request-id"] == "e-1"
    game = create(server, [{"kind": "human", "name": "Ana"}])
    url = f"{server.ws_url}/ws/games/{game['id']}"
    with connect(url, additional_headers={"X-Request-ID": "socket-1"}, open_timeout=10) as ws:
        assert ws.response is not None
        assert ws.response.headers["X-Request-ID"] == "socket-1"


def log_lines(server: LiveServer) -> list[dict[str, Any]]:
    """The server's standard error, every line of which must be a JSON object."""
    lines = [line for line in server.log_tail(size=1 << 20).splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]
    assert all(isinstance(entry, dict) for entry in entries)
    return entries


def test_json_logs_carry_each_request_id_and_no_seat_token(metered: LiveServer) -> None:
    response = httpx.get(
        metered.url + "/api/variants", headers={"X-Request-ID": "log-check-42"}, timeout=10.0
    )
    assert response.status_code == 200
    assert response.headers["x-request-id"] == "log-check-42"
    # A simple client's connection, its seat token in the URL's query.
    body = create(metered, [{"kind": "human", "name": "Ana"}])
    token = body["seats"][0]["token"]
    player = Player(metered.ws_url, body["id"], token)
    player.close()
    path = f"/ws/games/{body['id']}"
    found: dict[str, dict[str, Any]] = {}

    def logged() -> bool:
        for entry in log_lines(metered):
            if entry.get("request_id") == "log-check-42" or entry.get("path") == path:
                found[entry["path"]] = entry
        return len(found) == 2

    wait_until(logged, "the requests' log lines")
    line = found["/api/variants"]
    assert line["logger"] == "dicepoker.request" and line["level"] == "INFO"
    assert (line["method"], line["status"], line["request_id"]) == ("GET", 200, "log-check-42")
    assert line["message"] == "GET /api/variants 200" and line["seconds"] >= 0
    socket = found[path]
    assert (socket["method"], socket["status"]) == ("WS", 101)
    assert GENERATED.fullmatch(socket["request_id"])
    entries = log_lines(metered)
    assert token not in json.dumps(entries)
    # uvicorn's own lines are JSON too (every line was parsed): its start names no request.
    started = [e for e in entries if e["message"] == "Application startup complete."]
    assert len(started) == 1 and "request_id" not in started[0]
    assert all({"time", "level", "logger", "message"} <= set(e) for e in entries)


class Collected(logging.Handler):
    """The JSON lines of the records it is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter())
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


def test_a_crash_is_answered_and_logged_with_its_request_id(tmp_path: Any) -> None:
    app = create_app(Settings(database=str(tmp_path / "crash.db"), bot_workers=0))

    async def boom() -> None:
        raise RuntimeError("boom")

    app.add_api_route("/api/boom", boom)
    collected = Collected()
    logger = logging.getLogger("dicepoker")
    level = logger.level
    logger.addHandler(collected)
    logger.setLevel(logging.INFO)
    try:
        client = TestClient(app, raise_server_exceptions=False)
        answer = client.get("/api/boom", headers={"X-Request-ID": "crash-1"})
    finally:
        logger.removeHandler(collected)
        logger.setLevel(level)
    # The crash handler answers outside the middleware, and still names the request.
    assert answer.status_code == 500 and answer.json()["error"]["code"] == "internal"
    assert answer.headers["x-request-id"] == "crash-1"
    [crash] = [line for line in collected.lines if line["level"] == "ERROR"]
    assert crash["request_id"] == "crash-1" and "RuntimeError: boom" in crash["exception"]
    [request] = [line for line in collected.lines if line["logger"] == "dicepoker.request"]
    assert (request["request_id"], request["status"]) == ("crash-1", 500)
