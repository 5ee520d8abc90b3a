"""Games that end: a game with no action of a person for `--abandon-after` hours is closed as
abandoned, once, whichever process sweeps first; bots and turn clocks do not keep it alive; its
seats are refused (`abandoned`, close code 4410), it leaves the lobby's live lists, its record
stays valid and replayable, and it is never rated. Migration 0006 on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from dicepoker.dice import SeededDice
from dicepoker.master import GameMaster, MemoryStore, Refusal
from dicepoker.master.seats import new_token
from dicepoker.protocol import CLOSE_ABANDONED
from dicepoker.record import check_record, load_record
from dicepoker.server.community.ratings import unrated_why
from dicepoker.server.storage.store import (
    ConflictError,
    Store,
    StoredEvent,
    StoredGame,
    alembic_config,
)
from dicepoker.server.storage.store import database_url as async_url
from live_server import LiveServer, fresh_postgres_database, redis_url
from ws_client import Player

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]
HOUR = 3600.0


class Clock:
    """The master's clock, moved by the test."""

    def __init__(self) -> None:
        self.at = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.at


def run(scenario: Coroutine[Any, Any, None]) -> None:
    asyncio.run(scenario)


async def _refused(attempt: Coroutine[Any, Any, Any]) -> str:
    with pytest.raises(Refusal) as refused:
        await attempt
    return refused.value.code


# --- the master (in memory) ----------------------------------------------------------------------


def test_an_idle_game_is_closed_once_and_refuses_everything_a_seat_could_do() -> None:
    async def scenario() -> None:
        clock, store = Clock(), MemoryStore()
        master = GameMaster(store, now=clock, abandon_after=HOUR)  # committed dice
        await master.start()
        live, _tokens = await master.create("school", {"columns": 1}, HUMANS, None)
        waiting, _ = await master.create(
            "school", {"columns": 1}, [HUMANS[0], {"kind": "human"}], None
        )
        await master.act(live, 0, "roll", 0)
        clock.at += timedelta(minutes=50)
        assert await master.upkeep.abandon_idle() == []  # not idle long enough yet
        clock.at += timedelta(minutes=20)
        closed = await master.upkeep.abandon_idle()
        assert sorted(closed) == sorted([live.id, waiting.id])
        assert await master.upkeep.abandon_idle() == []  # closed once
        assert live.status == waiting.status == "abandoned"
        assert live.bot_to_move() is None
        attempts = [
            master.act(live, 0, "keep 0", 1),
            master.hold(live, 0, 1, [0]),
            master.auto(live, 0, person=True),
            master.react(live, 0, "oops"),
            master.join(waiting, None, "Cy"),
        ]
        assert [await _refused(attempt) for attempt in attempts] == ["abandoned"] * 5
        assert live.seq == 1 and await store.unfinished() == []
        # Its record is the game as it stood, valid, with when it was closed; no seed (the game
        # is not over: a revealed seed says a record is complete).
        record = live.record()
        assert record["abandoned"] == clock.at.isoformat()
        assert "seed" not in record["fair_dice"]
        _typed, game = check_record(load_record(json.dumps(record)))
        assert not game.state.finished and len(record["turns"]) == 1
        # Never rated, whatever it asked for: it has no result.
        live.rated = True
        assert unrated_why(live) == "abandoned"
        # Another master (a restart) loads it as abandoned, with the same record.
        again = await GameMaster(store, now=clock).load(live.id)
        assert again is not None and again.status == "abandoned"
        assert again.record()["turns"] == record["turns"] and "abandoned" in again.record()
        await master.close()

    run(scenario())


def test_bots_and_turn_clocks_do_not_keep_a_game_alive_a_person_does() -> None:
    async def scenario() -> None:
        clock, store = Clock(), MemoryStore()
        old = clock.at - timedelta(hours=2)
        token, digest = new_token()
        seats = [
            {"kind": "human", "name": "Ana", "token_hash": digest},
            {"kind": "bot", "name": "Greedy", "level": "greedy"},
        ]
        for game_id in ("machines", "person"):
            store.add(
                StoredGame(
                    id=game_id,
                    variant="school",
                    options={"columns": 1},
                    seats=seats,
                    status="running",
                    created_at=old,
                    human_at=old,
                )
            )
        master = GameMaster(store, dice=SeededDice(5), now=clock)
        await master.start()
        master.abandon_after = HOUR
        machines = await master.load("machines")
        person = await master.load("person")
        assert machines is not None and person is not None
        assert master.seat_of(machines, token) == 0
        # The turn clock plays Ana's turn (auto-play), then the bot plays its own.
        await master.auto(machines, 0)
        assert machines.game.state.seat == 1
        await master.act(machines, 1, "roll", machines.seq)
        # Ana herself rolls in the other game.
        await master.act(person, 0, "roll", 0)
        assert await master.upkeep.abandon_idle() == ["machines"]
        assert person.status == "running" and machines.status == "abandoned"
        # A game of bots only counts from its creation: it is closed like any other once it
        # has run that long without finishing.
        bots, _ = await master.create(
            "school", {"columns": 1}, [{"kind": "bot"}, {"kind": "bot"}], None
        )
        clock.at += timedelta(hours=2)
        assert sorted(await master.upkeep.abandon_idle()) == sorted([bots.id, "person"])
        await master.close()

    run(scenario())


def test_no_abandoning_when_switched_off() -> None:
    async def scenario() -> None:
        clock = Clock()
        master = GameMaster(MemoryStore(), dice=SeededDice(1), now=clock, abandon_after=0)
        await master.start()
        live, _ = await master.create("school", {"columns": 1}, HUMANS, None)
        clock.at += timedelta(days=400)
        assert await master.upkeep.abandon_idle() == [] and live.status == "running"
        await master.close()

    run(scenario())


# --- the SQL store ----------------------------------------------------------------------------


def _game(game_id: str, at: datetime, **fields: Any) -> StoredGame:
    base: dict[str, Any] = {
        "variant": "school",
        "options": {"columns": 1},
        "seats": [dict(seat) for seat in HUMANS],
        "status": "running",
        "created_at": at,
    }
    return StoredGame(id=game_id, **{**base, **fields})


def _event(seq: int, seat: int = 0) -> StoredEvent:
    return StoredEvent(seq, seat, "roll", [1, 2, 3, 4, 5], False)


def test_the_store_closes_each_idle_game_once(database: str) -> None:
    async def scenario() -> None:
        store, other = Store(database), Store(database)
        await store.migrate()
        now = datetime.now(UTC)
        old = now - timedelta(hours=2)
        bot_seats = [dict(HUMANS[0]), {"kind": "bot", "name": "Greedy", "level": "greedy"}]
        try:
            await store.create_game(_game("idle", old))
            await store.create_game(_game("bots", old, seats=bot_seats))
            await store.create_game(_game("busy", old))
            await store.create_game(
                _game(
                    "joined", old, status="open", seats=[HUMANS[0], {"kind": "human", "name": None}]
                )
            )
            await store.create_game(_game("done", old, status="finished"))
            await store.create_game(_game("clocked", now, turn_seconds=30))
            await store.append("bots", 0, _event(1, seat=1), "running")  # a bot's move
            await store.append("busy", 0, _event(1), "running", person=True)
            joined = [dict(HUMANS[0]), {"kind": "human", "name": "Cy", "token_hash": "x"}]
            assert await store.update_seats(
                "joined", joined, "running", [HUMANS[0], {"kind": "human", "name": None}]
            )
            assert sorted(await store.moving_alone()) == ["bots", "clocked"]
            assert sorted(await store.abandon(now - timedelta(hours=1))) == ["bots", "idle"]
            assert await store.abandon(now - timedelta(hours=1)) == []
            idle = await store.game("idle")
            assert idle is not None and idle.status == "abandoned" and idle.seq == 0
            with pytest.raises(ConflictError):  # its seat's move comes too late
                await store.append("idle", 0, _event(1), "running", person=True)
            assert not await store.update_seats("idle", HUMANS, "running", idle.seats)
            assert sorted(await store.unfinished()) == ["busy", "clocked", "joined"]
            assert await store.moving_alone() == ["clocked"]
            # Two processes sweep at once: each game is closed by exactly one of them.
            many = [f"many{n}" for n in range(30)]
            for game_id in many:
                await store.create_game(_game(game_id, old))
            cutoff = now - timedelta(hours=1)
            first, second = await asyncio.gather(store.abandon(cutoff), other.abandon(cutoff))
            assert sorted(first + second) == sorted(many) and not set(first) & set(second)
        finally:
            await store.close()
            await other.close()

    run(scenario())


# --- migration 0006 ------------------------------------------------------------------------------


def _sql(url: str, statement: str, **params: Any) -> list[Any]:
    async def go() -> list[Any]:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as connection:
                result = await connection.execute(text(statement), params)
                return list(result.all()) if result.returns_rows else []
        finally:
            await engine.dispose()

    return asyncio.run(go())


def test_migration_0006_adds_the_last_persons_action_and_takes_it_away(database: str) -> None:
    url = async_url(database)
    command.upgrade(alembic_config(url), "0005")
    at = datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)
    _sql(
        url,
        "INSERT INTO games (id, variant, options, seats, status, seq, turn_seconds, created_at, "
        "updated_at, rated) VALUES ('old', 'school', '{}', '[]', 'running', 0, 0, :at, :at, "
        "false)",
        at=at,
    )
    command.upgrade(alembic_config(url), "head")
    [(human_at, updated_at)] = _sql(url, "SELECT human_at, updated_at FROM games")
    assert human_at == updated_at and human_at is not None
    _sql(url, "UPDATE games SET status = 'abandoned'")
    command.downgrade(alembic_config(url), "0005")
    assert _sql(url, "SELECT status FROM games") == [("running",)]
    with pytest.raises(Exception, match="human_at"):
        _sql(url, "SELECT human_at FROM games")
    command.upgrade(alembic_config(url), "head")


# --- a real server ------------------------------------------------------------------------------


def test_a_real_server_closes_an_idle_game_and_refuses_its_tokens(tmp_path: Path) -> None:
    # 0.002 hours: 7.2 seconds without a person's action (time to set the game up on a busy
    # machine first).
    server = LiveServer(str(tmp_path / "games.db"), options=("--abandon-after", "0.002"))
    server.start()
    try:
        made = server.post("/api/games", {"variant": "school", "seats": HUMANS}).json()
        game_id, token = made["id"], made["seats"][0]["token"]
        open_game = server.post(
            "/api/games", {"variant": "school", "seats": [HUMANS[0], {"kind": "human"}]}
        ).json()
        ana = Player(server.ws_url, game_id, token)
        assert ana.act("roll", 0)["type"] == "event"
        # Ana's table hears that the game was closed, and her next move is refused.
        told = ana.until(lambda m: m.get("status") == "abandoned", timeout=30)
        assert told["type"] == "seats"
        refused = ana.act("keep 0", 1)
        assert refused["type"] == "error" and refused["code"] == "abandoned", refused
        ana.close()
        info = server.wait_for(
            f"/api/games/{open_game['id']}", lambda g: g["status"] == "abandoned"
        )
        assert info["seats"][1]["taken"] is False
        for status in ("running", "open"):
            listed = server.get(f"/api/games?status={status}")["games"]
            assert not {game_id, open_game["id"]} & {g["id"] for g in listed}
        abandoned = {g["id"] for g in server.get("/api/games?status=abandoned")["games"]}
        assert {game_id, open_game["id"]} <= abandoned
        # Taking the open seat: a typed refusal, no seat.
        joined = server.post(f"/api/games/{open_game['id']}/join", {"name": "Cy"})
        assert joined.status_code == 409 and joined.json()["error"]["code"] == "abandoned"
        # A socket with the seat's token (and a spectator's) is closed with 4410.
        for query in (f"?token={token}", ""):
            with connect(f"{server.ws_url}/ws/games/{game_id}{query}", open_timeout=10) as ws:
                with pytest.raises(ConnectionClosed) as closed:
                    ws.recv(timeout=10)
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == CLOSE_ABANDONED
        # The record stays: valid, replayable, imported again as any record.
        record = server.get(f"/api/games/{game_id}/record")
        assert "abandoned" in record and len(record["turns"]) == 1
        check_record(record)
        imported = server.post("/api/records", record)
        assert imported.status_code == 201, imported.text
        page = httpx.get(f"{server.url}/replay/g/{game_id}", timeout=10)
        assert page.status_code == 200
        ratings = server.get(f"/api/games/{game_id}/ratings")
        assert ratings["status"] == "unrated" and ratings["reason"] == "abandoned"
    finally:
        server.stop()


def test_two_processes_close_a_game_once_and_both_tables_hear_it() -> None:
    """On PostgreSQL with Redis: whichever process sweeps first closes the game; the other one,
    holding it for its own table, is told over Redis and refuses its seat too."""
    database = fresh_postgres_database()
    options = ("--abandon-after", "0.002")
    first = LiveServer(database, redis=redis_url(), options=options).start()
    try:
        second = LiveServer(database, redis=redis_url(), options=options).start()
        try:
            made = first.post("/api/games", {"variant": "school", "seats": HUMANS}).json()
            game_id = made["id"]
            ana = Player(first.ws_url, game_id, made["seats"][0]["token"])
            bea = Player(second.ws_url, game_id, made["seats"][1]["token"])
            assert ana.act("roll", 0)["type"] == "event"
            for player in (ana, bea):
                player.until(lambda m: m.get("status") == "abandoned", timeout=30)
            refused = bea.act("roll", 1)
            assert refused["type"] == "error" and refused["code"] == "abandoned", refused
            ana.close()
            bea.close()
            for server in (first, second):
                assert server.get(f"/api/games/{game_id}")["status"] == "abandoned"
                assert server.get(f"/api/games/{game_id}/record")["turns"][0]["rolls"]
        finally:
            second.stop()
    finally:
        first.stop()
