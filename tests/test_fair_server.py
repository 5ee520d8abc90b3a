"""Fair dice on the server (docs/fair-dice.md): committed seeds, revealed at the end and verified,
through restarts, migrations, the pages and two server processes."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from alembic import command
from playwright.sync_api import Browser, expect
from sqlalchemy import inspect
from sqlalchemy.ext.asyncio import create_async_engine

from dicepoker.fair import (
    RECORD_KEY,
    SCHEME,
    commitment,
    verify_record,
)
from dicepoker.record import replay
from dicepoker.server.storage.store import alembic_config, database_url
from fair_support import rolls_in
from live_server import LiveServer, fresh_postgres_database
from ws_client import Player

T = TypeVar("T")

# --- the server ---------------------------------------------------------------------------------


def stored_seed(server: LiveServer, game_id: str) -> str:
    with sqlite3.connect(server.database) as connection:
        row = connection.execute("SELECT dice_seed FROM games WHERE id = ?", (game_id,)).fetchone()
    assert row is not None and isinstance(row[0], str)
    return row[0]


# A 1-column School game of two people, both seated.
TWO_PEOPLE: dict[str, Any] = {
    "variant": "school",
    "options": {"columns": 1},
    "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}],
}


def create(server: LiveServer, body: dict[str, Any]) -> dict[str, Any]:
    response = server.post("/api/games", body)
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    return answer


@pytest.mark.parametrize(
    ("variant", "options", "levels"),
    [
        ("school", {"columns": 1}, ["greedy", "random"]),
        ("yahtzee", {}, ["greedy", "random"]),
        ("yahtzee15", {}, ["random"]),
        ("poker-dice", {"turn_seconds": 0}, ["random", "random", "random"]),
    ],
)
def test_server_games_verify(
    server: LiveServer, variant: str, options: dict[str, Any], levels: list[str]
) -> None:
    body = create(
        server,
        {
            "variant": variant,
            "options": options,
            "seats": [{"kind": "bot", "level": level} for level in levels],
        },
    )
    game_id = body["id"]
    game = server.wait_for(f"/api/games/{game_id}", lambda g: g["status"] == "finished")
    seed = stored_seed(server, game_id)
    assert game["fair_dice"] == {"scheme": SCHEME, "commitment": commitment(seed), "seed": seed}
    record = server.get(f"/api/games/{game_id}/record")
    assert record[RECORD_KEY] == game["fair_dice"]
    result = verify_record(record)
    assert result.ok, result.message
    assert server.get(f"/api/games/{game_id}/verify") == result.as_json()
    imported = server.post("/api/records", record).json()["id"]
    assert server.get(f"/api/records/{imported}/verify")["ok"] is True


def _has_seq(seq: int, message: dict[str, Any]) -> bool:
    return bool(message.get("seq") == seq)


def test_the_seed_stays_secret_until_the_end(server: LiveServer) -> None:
    body = create(server, TWO_PEOPLE)
    game_id = body["id"]
    seed = stored_seed(server, game_id)
    committed = commitment(seed)
    tokens = [seat["token"] for seat in body["seats"]]
    ana = Player(server.ws_url, game_id, tokens[0])
    bea = Player(server.ws_url, game_id, tokens[1])
    watcher = Player(server.ws_url, game_id)
    ana.play_turn()
    bea.until(partial(_has_seq, ana.seq))
    assert bea.act("roll")["type"] == "event"
    bea.send({"type": "sync", "last_seq": 0})
    bea.until(lambda m: m["type"] == "sync")

    seen: list[Any] = [ana.seen, bea.seen, watcher.seen]
    for path in [
        f"/api/games/{game_id}",
        f"/api/games/{game_id}/record",
        f"/api/games/{game_id}/position?turn=1&roll=1",
        f"/api/games/{game_id}/advice",
        f"/api/games/{game_id}/analysis",
        f"/api/games/{game_id}/verify",
        "/api/games?limit=200",
    ]:
        response = httpx.get(server.url + path, timeout=60.0)
        seen.append(response.text)
    text = json.dumps(seen)
    assert seed not in text and seed.upper() not in text
    public = {"scheme": SCHEME, "commitment": committed}
    assert server.get(f"/api/games/{game_id}")["fair_dice"] == public
    assert server.get(f"/api/games/{game_id}/record")[RECORD_KEY] == public
    assert all(m["fair_dice"] == public for m in watcher.seen if m["type"] in ("welcome", "event"))
    early_verify = httpx.get(f"{server.url}/api/games/{game_id}/verify", timeout=10.0)
    assert early_verify.status_code == 409
    assert early_verify.json()["error"]["code"] == "not_finished"

    # Play to the end: the last event reveals the seed, and the record verifies.
    players = [ana, bea]
    while not ana.state["finished"]:
        mover = players[ana.state["turn"]["seat"]]
        mover.play_turn()
        for player in players:
            if player.seq < mover.seq:
                player.until(partial(_has_seq, mover.seq))
    last = watcher.until(lambda m: m["type"] == "event" and watcher.state["finished"])
    assert last["fair_dice"] == {**public, "seed": seed}
    record = server.get(f"/api/games/{game_id}/record")
    assert record[RECORD_KEY]["seed"] == seed
    result = server.get(f"/api/games/{game_id}/verify")
    assert result["ok"] is True and result["rolls"] == rolls_in(record)
    for player in (ana, bea, watcher):
        player.close()


def test_stored_dice_stay_the_source_of_truth_after_a_restart(tmp_path: Path) -> None:
    server = LiveServer(str(tmp_path / "games.db")).start()
    try:
        body = create(
            server,
            {
                "variant": "yahtzee",
                "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}],
            },
        )
        game_id = body["id"]
        ana = Player(server.ws_url, game_id, body["seats"][0]["token"])
        ana.play_turn()
        ana.close()
        # The bot has played its turn: it is Ana's again, and nothing moves until she does.
        before = server.wait_for(f"/api/games/{game_id}", lambda g: g["state"]["turn"]["seat"] == 0)
        server.restart(kill=True)
        after = server.get(f"/api/games/{game_id}")
        assert after["fair_dice"] == before["fair_dice"] and "seed" not in after["fair_dice"]
        assert after["state"] == before["state"]
        ana = Player(server.ws_url, game_id, body["seats"][0]["token"])
        while not ana.state["finished"]:
            if ana.my_turn():
                ana.play_turn()
            else:
                ana.until(lambda m: m["type"] == "event")
        ana.close()
        assert server.get(f"/api/games/{game_id}/verify")["ok"] is True
    finally:
        server.stop()


# --- the migration ------------------------------------------------------------------------------


def off_loop(function: Callable[..., T], *args: Any) -> T:
    """Run `function` (which calls asyncio.run) in a thread of its own: the sync Playwright of
    the browser test keeps an event loop in this thread while its module fixture lives."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args).result()


def columns(url: str) -> set[str]:
    async def read() -> set[str]:
        engine = create_async_engine(url)
        async with engine.connect() as connection:
            names = await connection.run_sync(
                lambda sync: {column["name"] for column in inspect(sync).get_columns("games")}
            )
        await engine.dispose()
        return names

    return off_loop(asyncio.run, read())


def test_migration_0002_adds_and_removes_the_seed_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    url = f"sqlite+aiosqlite:///{path}"
    off_loop(command.upgrade, alembic_config(url), "0001")
    assert not {"dice_seed", "dice_commitment"} & columns(url)
    # A game made before fair dice: bots only, not started yet.
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    seats = [{"kind": "bot", "name": "Greedy 1", "level": "greedy"}]
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO games (id, variant, options, seats, status, seq, turn_seconds,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?)",
            (
                "oldgame",
                "yahtzee",
                "{}",
                json.dumps(seats),
                "running",
                # Made just now: an older game would be closed as abandoned at the start.
                made,
                made,
            ),
        )
    off_loop(command.upgrade, alembic_config(url), "head")
    assert {"dice_seed", "dice_commitment"} <= columns(url)
    off_loop(command.downgrade, alembic_config(url), "0001")
    assert not {"dice_seed", "dice_commitment"} & columns(url)
    off_loop(command.upgrade, alembic_config(url), "head")

    # The server takes the old game on: unpredictable dice, no commitment, nothing to verify.
    server = LiveServer(str(path)).start()
    try:
        game = server.wait_for("/api/games/oldgame", lambda g: g["status"] == "finished")
        assert game["fair_dice"] is None
        record = server.get("/api/games/oldgame/record")
        assert RECORD_KEY not in record and replay(record).state.finished
        result = server.get("/api/games/oldgame/verify")
        assert result["ok"] is False and result["reason"] == "no_fair_dice"
    finally:
        server.stop()


# --- the web pages ------------------------------------------------------------------------------


def test_pages_show_the_commitment_and_the_check(server: LiveServer, browser: Browser) -> None:
    expect.set_options(timeout=15_000)
    running = create(server, TWO_PEOPLE)["id"]
    committed = commitment(stored_seed(server, running))
    done = create(
        server,
        {"variant": "yahtzee", "seats": [{"kind": "bot", "level": "greedy"}]},
    )["id"]
    server.wait_for(f"/api/games/{done}", lambda g: g["status"] == "finished")
    seed = stored_seed(server, done)
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        # During play: the commitment, short, with the full value in the title; no seed.
        page.goto(f"{server.url}/g/{running}?lang=en")
        chip = page.locator("#fair-chip")
        expect(chip).to_be_visible()
        expect(chip.locator(".fair-hex")).to_have_text(f"{committed[:8]}…{committed[-4:]}")
        assert committed in (chip.get_attribute("title") or "")
        expect(page.locator("#fair-result")).to_be_hidden()
        # After the end: the seed and the check, on the end screen and in the replay viewer.
        page.goto(f"{server.url}/g/{done}?lang=en")
        result = page.locator("#fair-result")
        expect(result.locator(".fair-head")).to_have_text("✓ Dice verified")
        expect(result).to_contain_text(seed)
        expect(result).to_contain_text("dicepoker verify FILE")
        page.goto(f"{server.url}/replay/g/{done}?lang=pt")
        expect(page.locator("#fair-result .fair-head")).to_have_text("✓ Dados verificados")
        page.goto(f"{server.url}/g/{done}?lang=es")
        expect(page.locator("#fair-result .fair-head")).to_have_text("✓ Dados verificados")
        expect(page.locator("#fair-chip .fair-label")).to_have_text("Compromiso de los dados")
        assert errors == []
    finally:
        context.close()


def test_fair_dice_and_migration_0002_on_postgresql() -> None:
    url = off_loop(fresh_postgres_database)
    server = LiveServer(url).start()  # migrates the new database to the head
    try:
        body = create(
            server,
            {
                "variant": "poker-dice",
                "options": {"turn_seconds": 0},
                "seats": [{"kind": "bot", "level": "random"}, {"kind": "bot", "level": "greedy"}],
            },
        )
        server.wait_for(f"/api/games/{body['id']}", lambda g: g["status"] == "finished")
        record = server.get(f"/api/games/{body['id']}/record")
        assert verify_record(record).ok
        assert server.get(f"/api/games/{body['id']}/verify")["ok"] is True
    finally:
        server.stop()
    config = alembic_config(database_url(url))
    assert {"dice_seed", "dice_commitment"} <= columns(database_url(url))
    off_loop(command.downgrade, config, "0001")
    assert not {"dice_seed", "dice_commitment"} & columns(database_url(url))
    off_loop(command.upgrade, config, "head")
    assert {"dice_seed", "dice_commitment"} <= columns(database_url(url))


def test_two_server_processes_roll_the_same_committed_dice(
    server_pair: tuple[LiveServer, LiveServer],
) -> None:
    """Ana plays through one process and Bea through another (PostgreSQL + Redis): each process
    derives its rolls from the stored seed, and both reveal it and verify at the end."""
    first, second = server_pair
    body = create(first, TWO_PEOPLE)
    game_id = body["id"]
    ana = Player(first.ws_url, game_id, body["seats"][0]["token"])
    bea = Player(second.ws_url, game_id, body["seats"][1]["token"])
    assert ana.seen[0]["fair_dice"] == bea.seen[0]["fair_dice"]
    assert "seed" not in bea.seen[0]["fair_dice"]
    players = [ana, bea]
    while not ana.state["finished"]:
        mover = players[ana.state["turn"]["seat"]]
        mover.play_turn()
        for player in players:
            if player.seq < mover.seq:
                player.until(partial(_has_seq, mover.seq))
    ana.close()
    bea.close()
    records = [server.get(f"/api/games/{game_id}/record") for server in (first, second)]
    assert records[0] == records[1]
    assert "seed" in records[0][RECORD_KEY]
    assert verify_record(records[0]).ok
    assert all(server.get(f"/api/games/{game_id}/verify")["ok"] for server in (first, second))
