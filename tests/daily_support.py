"""Helpers of the daily challenge's tests: an app on a moved clock, a player over the
WebSocket, accounts, and the condition waits (nothing sleeps for timing)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, date, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from dicepoker.server.services import Services
from dicepoker.server.settings import Settings
from dicepoker.server.storage.daily_store import DailyStore
from dicepoker.site import create_app

ORIGIN = {"origin": "http://testserver"}  # what a browser's page sends with a POST
PASSWORD = "correct horse"
PRESET = "yahtzee"  # 13 turns: the quickest preset to play many games of
START = datetime(2031, 3, 14, 15, 30, tzinfo=UTC)
DAY = START.date().isoformat()
Plan = Callable[[int, int], list[int] | None]


class Clock:
    """The app's clock: tests move it (to the next day) instead of waiting."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def next_day(self) -> None:
        self.now = datetime.combine(self.now.date() + timedelta(days=1), START.timetz())


def _settings(database: str) -> Settings:
    return Settings(
        database=database,
        bot_delay=0,
        bot_workers=0,
        ws_rate=0,
        http_rate=0,
        analysis_rate=0,
        login_rate=0,
        login_name_rate=0,
    )


@contextmanager
def app_client(database: str, clock: Clock) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(database), now=clock)) as client:
        yield client


def clock_fixture() -> Clock:
    return Clock(START)


def client_fixture(database: str, clock: Clock) -> Iterator[TestClient]:
    with app_client(database, clock) as test_client:
        yield test_client


def services_of(client: TestClient) -> Services:
    app: Any = client.app
    found: Services = app.state.services
    return found


def call(client: TestClient, function: Callable[..., Any], *args: Any) -> Any:
    """Run a coroutine function on the app's own event loop (the test client's portal)."""
    assert client.portal is not None
    return client.portal.call(function, *args)


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


class Seat:
    """One player's connection to their game (the WebSocket of docs/api.md)."""

    def __init__(self, client: TestClient, game_id: str, token: str) -> None:
        self._stack = ExitStack()
        self.ws = self._stack.enter_context(
            client.websocket_connect(f"/ws/games/{game_id}?token={token}")
        )
        self.seen: list[dict[str, Any]] = []
        welcome = self._receive()
        assert welcome["type"] == "welcome" and welcome["seat"] == 0, welcome
        self.seq: int = welcome["seq"]
        self.state: dict[str, Any] = welcome["state"]

    def _receive(self) -> dict[str, Any]:
        message: dict[str, Any] = self.ws.receive_json()
        self.seen.append(message)
        return message

    def act(self, action: str) -> dict[str, Any]:
        self.ws.send_json({"type": "act", "action": action, "seq": self.seq})
        while True:
            message = self._receive()
            assert message["type"] != "error", (action, message)
            if message["type"] == "event" and message["seq"] == self.seq + 1:
                self.seq, self.state = message["seq"], message["state"]
                return message

    def play(self, plan: Plan) -> None:
        """Play the game to its end: each turn rolls, then keeps what `plan(turn, roll)` says
        (None: no more rolls) while rolls are left, then fills the cell of the best gain."""
        turn = 0
        while not self.state["finished"]:
            self.act("roll")
            roll = 1
            while self.state["turn"]["can_keep"] and self.state["turn"]["rolls_left"] > 0:
                keep = plan(turn, roll)
                if keep is None:
                    break
                self.act(" ".join(["keep", *map(str, keep)]) if keep else "roll")
                roll += 1
            best = max(self.state["turn"]["legal"], key=lambda option: option["gain"])
            self.act(best["action"])
            turn += 1

    def close(self) -> None:
        self._stack.close()


def account(client: TestClient, name: str) -> dict[str, str]:
    """The session cookie of the account `name`, made on first use (the client is left logged
    out)."""
    client.cookies.clear()
    body = {"name": name, "password": PASSWORD}
    made = client.post("/api/accounts", json=body, headers=ORIGIN)
    if made.status_code == 409:
        ok(client.post("/api/session", json=body, headers=ORIGIN))
    else:
        ok(made, 201)
    cookies = dict(client.cookies)
    client.cookies.clear()
    return cookies


def start(client: TestClient, name: str, preset: str = PRESET) -> dict[str, Any]:
    """The account `name` starts its game of today's challenge (only accounts play it). The
    answer has the seat's `headers` too: its token, by which its player reads the game during
    the day (nobody else may)."""
    with logged_in(client, account(client, name)):
        created: dict[str, Any] = ok(client.post(f"/api/daily/{preset}", headers=ORIGIN), 201)
    created["headers"] = player_of(created)
    return created


def player_of(created: dict[str, Any]) -> dict[str, str]:
    """The headers by which a game's player reads it (their seat's token)."""
    return {"Authorization": f"Bearer {created['token']}"}


def play(client: TestClient, created: dict[str, Any], plan: Plan) -> dict[str, Any]:
    seat = Seat(client, created["id"], created["token"])
    try:
        seat.play(plan)
        assert all("seed" not in m.get("fair_dice", {}) for m in seat.seen)
    finally:
        seat.close()
    path = f"/api/games/{created['id']}/record"
    record: dict[str, Any] = ok(client.get(path, headers=player_of(created)))
    return record


def same_keeps(turn: int, roll: int) -> list[int] | None:
    return [turn % 5] if roll == 1 else [turn % 5, (turn + 2) % 5]


def other_keeps(turn: int, roll: int) -> list[int] | None:
    return [] if roll == 1 else None  # throw all five again once, then stop


def seed_of(client: TestClient, preset: str, day: str) -> str:
    found = call(client, DailyStore(services_of(client).store).day, preset, date.fromisoformat(day))
    assert found is not None
    seed: str = found.seed
    return seed


def wait_par(client: TestClient, preset: str, day: str | None = None) -> int:
    """The par once the server has it (a condition polled, no fixed wait)."""
    query = f"?date={day}" if day else ""
    deadline = time.monotonic() + 120
    while True:
        found = ok(client.get(f"/api/daily/{preset}{query}"))["par"]
        if found is not None:
            return int(found)
        assert time.monotonic() < deadline, "the par was not computed"
        time.sleep(0.05)  # polling a condition: the par is computed on a worker thread


def sign_up(client: TestClient, name: str) -> dict[str, str]:
    """A new account's session cookie (the client is left logged out)."""
    client.cookies.clear()
    body = {"name": name, "password": PASSWORD}
    ok(client.post("/api/accounts", json=body, headers=ORIGIN), 201)
    cookies = dict(client.cookies)
    client.cookies.clear()
    return cookies


@contextmanager
def logged_in(client: TestClient, cookies: dict[str, str]) -> Iterator[None]:
    client.cookies.update(cookies)
    try:
        yield
    finally:
        client.cookies.clear()
