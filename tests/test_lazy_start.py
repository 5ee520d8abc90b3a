"""Games are loaded on first use: a server started on 10,000 unfinished games is ready within
2 seconds, a game of the set plays on when touched, and a game whose bot is to move goes on with
nobody touching it (resumed in the background after the start)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
from sqlalchemy import insert

from dicepoker.fair import commitment, new_seed
from dicepoker.master.seats import new_token
from dicepoker.server.storage.models import GameRow
from dicepoker.server.storage.store import Store
from live_server import LiveServer
from ws_client import Player

GAMES = 10_000
READY_SECONDS = 2.0


def _fill(path: Path, token_hash: str) -> None:
    """10,000 running games of two people (one bulk insert), and one whose bot is to move."""

    async def fill() -> None:
        store = Store(str(path))
        await store.migrate()
        now = datetime.now(UTC)
        people = [
            {"kind": "human", "name": "Ana", "token_hash": token_hash},
            {"kind": "human", "name": "Bea"},
        ]
        rows = [
            {
                "id": f"g{n:05d}",
                "variant": "school",
                "options": {"columns": 1},
                "seats": people,
                "status": "running",
                "seq": 0,
                "turn_seconds": 0,
                "created_at": now,
                "updated_at": now,
                "human_at": now,
                "dice_seed": seed,
                "dice_commitment": commitment(seed),
                "rated": False,
            }
            for n, seed in ((n, new_seed()) for n in range(GAMES))
        ]
        bot_first = [{"kind": "bot", "name": "Greedy", "level": "greedy"}, people[1]]
        rows.append({**rows[0], "id": "botgame", "seats": bot_first})
        try:
            async with store.transaction() as session:
                await session.execute(insert(GameRow), rows)
        finally:
            await store.close()

    asyncio.run(fill())


def _started_at(log: str) -> float:
    """When uvicorn says the server process started (its first JSON log line): the interpreter
    has imported the app; everything the server does about its games comes after."""
    for line in log.splitlines():
        if line.startswith("{") and "Started server process" in line:
            return datetime.fromisoformat(json.loads(line)["time"]).timestamp()
    raise AssertionError(f"no start line in the server's log:\n{log}")


def _wait(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)  # polling a condition, not a timing assumption


def test_ten_thousand_unfinished_games_do_not_hold_up_the_start(tmp_path: Path) -> None:
    path = tmp_path / "many.db"
    token, digest = new_token()
    _fill(path, digest)
    server = LiveServer(str(path), options=("--log-json",))
    launched = time.time()
    server.start()  # returns once the server answers
    try:
        ready = httpx.get(f"{server.url}/readyz", timeout=10.0)
        ready_at = time.time()
        assert ready.status_code == 200, ready.text
        started = _started_at(server.log_tail(200_000))
        print(
            f"\n{GAMES} games: ready {ready_at - started:.2f} s after the server process "
            f"started ({ready_at - launched:.2f} s after it was launched, imports included)"
        )
        assert ready_at - started < READY_SECONDS

        # The game whose bot is to move goes on by itself (read in the database: asking the
        # server for it would load it).
        def bot_moved() -> bool:
            with sqlite3.connect(path) as db:
                (seq,) = db.execute("SELECT seq FROM games WHERE id = 'botgame'").fetchone()
            return int(seq) > 0

        _wait(bot_moved)
        # A game of the set plays on when touched.
        ana = Player(server.ws_url, "g04321", token)
        assert ana.seat == 0 and ana.seq == 0
        assert ana.act("roll", 0)["type"] == "event"
        assert server.get("/api/games/g04321")["seq"] == 1
        ana.close()
    finally:
        server.stop()
