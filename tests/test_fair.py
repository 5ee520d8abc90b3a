"""Fair dice you can verify (docs/fair-dice.md): the derivation, the check, the server, the CLI."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import hmac
import json
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from alembic import command
from alembic.config import Config
from playwright.sync_api import Browser, expect
from sqlalchemy import inspect
from sqlalchemy.ext.asyncio import create_async_engine

from dicepoker.bots import make_bot
from dicepoker.engine import FORFEIT, Roll, new_game
from dicepoker.fair import (
    RECORD_KEY,
    SCHEME,
    FairDice,
    commitment,
    die,
    new_seed,
    record_entry,
    thrown_positions,
    verify_record,
)
from dicepoker.record import Game, replay
from dicepoker.rules import get_rules
from dicepoker.server.store import MIGRATIONS, database_url
from live_server import DICEPOKER, LiveServer, fresh_postgres_database
from ws_client import Player

T = TypeVar("T")

#: The seed of the worked example in docs/fair-dice.md: the bytes 0x00, 0x01, ..., 0x1f.
EXAMPLE_SEED = bytes(range(32)).hex()


def reference_die(seed_hex: str, message: str) -> int:
    """The derivation written out again from the documentation, with hashlib and hmac only."""
    digest = hmac.new(bytes.fromhex(seed_hex), message.encode(), hashlib.sha256).digest()
    return next(byte % 6 + 1 for byte in digest if byte < 252)


# --- the derivation --------------------------------------------------------------------------


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    assert commitment(EXAMPLE_SEED) == hashlib.sha256(bytes(range(32))).hexdigest()
    assert commitment(EXAMPLE_SEED) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )


def test_known_answers_of_the_worked_example() -> None:
    first = [die(EXAMPLE_SEED, 1, 1, position) for position in range(5)]
    assert first == [reference_die(EXAMPLE_SEED, f"1:1:{p}") for p in range(5)]
    assert first == [4, 1, 4, 2, 5]
    # Roll 2 of turn 1 holds 0, 2 and 4: it throws positions 1 and 3.
    assert thrown_positions([0, 2, 4]) == (1, 3)
    assert [die(EXAMPLE_SEED, 1, 2, p) for p in (1, 3)] == [3, 6]
    assert [reference_die(EXAMPLE_SEED, f"1:2:{p}") for p in (1, 3)] == [3, 6]
    # Turn 2 roll 3 die 4: the first byte of the HMAC is 252, rejected; the second, 201, is used.
    digest = hmac.new(bytes(range(32)), b"2:3:4", hashlib.sha256).digest()
    assert list(digest[:2]) == [252, 201]
    assert die(EXAMPLE_SEED, 2, 3, 4) == 201 % 6 + 1 == 4


def test_a_fully_rejected_digest_goes_on_with_a_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    real = hmac.new
    asked: list[bytes] = []

    class Rejecting:
        def digest(self) -> bytes:
            return bytes([255] * 32)

    def fake_new(key: bytes, message: bytes, digestmod: Any) -> Any:
        asked.append(message)
        if message == b"7:1:2":
            return Rejecting()
        return real(key, message, digestmod)

    monkeypatch.setattr(hmac, "new", fake_new)
    value = die(EXAMPLE_SEED, 7, 1, 2)
    monkeypatch.undo()
    assert asked == [b"7:1:2", b"7:1:2:1"]
    assert value == reference_die(EXAMPLE_SEED, "7:1:2:1")


def test_dice_look_uniform() -> None:
    """Chi-square of 60,000 derived faces against the uniform law (5 degrees of freedom)."""
    counts = Counter(
        die(EXAMPLE_SEED, turn, roll, position)
        for turn in range(1, 4001)
        for roll in range(1, 4)
        for position in range(5)
    )
    total = sum(counts.values())
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    expected = total / 6
    chi2 = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    assert chi2 < 20.5  # the 0.001 critical value: a fixed seed, so this never flickers


def test_other_face_counts_reject_the_right_bytes() -> None:
    faces = [die(EXAMPLE_SEED, 1, 1, p, faces=4) for p in range(200)]
    assert set(faces) == {1, 2, 3, 4}  # 256 is a multiple of 4: no byte is rejected
    digest = hmac.new(bytes(range(32)), b"1:1:0", hashlib.sha256).digest()
    assert die(EXAMPLE_SEED, 1, 1, 0, faces=4) == digest[0] % 4 + 1


def test_seeds_are_fresh_and_well_formed() -> None:
    seeds = {new_seed() for _ in range(50)}
    assert len(seeds) == 50
    assert all(len(s) == 64 and all(c in "0123456789abcdef" for c in s) for s in seeds)
    with pytest.raises(ValueError):
        commitment("00" * 31)
    with pytest.raises(ValueError):
        commitment(EXAMPLE_SEED.upper())
    assert "secret" in repr(FairDice(EXAMPLE_SEED)) and EXAMPLE_SEED not in repr(
        FairDice(EXAMPLE_SEED)
    )


# --- records played with fair dice through the engine (what the hub does) --------------------


def play_fair(
    preset: str, levels: list[str], number: int, *, forfeit_turn: int | None = None
) -> dict[str, Any]:
    """A bot game whose dice come from a seed exactly as the hub derives them."""
    seed = hashlib.sha256(f"test-{preset}-{number}".encode()).hexdigest()
    options = {"turn_seconds": 60} if forfeit_turn else {}
    rules = get_rules(preset, options)
    bots = [make_bot(level, number + seat) for seat, level in enumerate(levels)]
    names = [f"P{seat + 1}" for seat in range(len(levels))]
    game = Game(rules, names, extra={RECORD_KEY: record_entry(commitment(seed))})
    dice = FairDice(seed)
    while not game.state.finished:
        state = game.state
        action = bots[state.seat].choose(state)
        if forfeit_turn is not None and state.turn + 1 == forfeit_turn and state.rolls == 1:
            action = FORFEIT
        game.play(action, dice.for_action(state, action))
    game.extra[RECORD_KEY] = record_entry(commitment(seed), seed)
    return game.to_record()


def rolls_in(record: dict[str, Any]) -> int:
    return sum(len(turn.get("rolls", [])) for turn in record["turns"])


@pytest.mark.parametrize("preset", ["school", "yahtzee", "yahtzee15", "poker-dice"])
def test_engine_games_verify(preset: str) -> None:
    record = play_fair(preset, ["greedy", "random"], 1)
    result = verify_record(record)
    assert result.ok, result.message
    assert result.rolls == rolls_in(record) and result.rolls > 0
    assert result.message == (
        f"dice verified: {result.rolls} rolls match commitment {record[RECORD_KEY]['commitment']}"
    )


def test_tie_break_and_forfeit_turns_verify() -> None:
    rules = get_rules("poker-dice")
    main_turns = 2 * len(rules.rows)
    # Random bots tie for first often enough: the first seeds include a tie-break.
    records = [play_fair("poker-dice", ["random", "random"], n) for n in range(12)]
    tied = [r for r in records if len(r["turns"]) > main_turns]
    assert tied, "no tie-break among the first seeds"
    for record in tied:
        assert verify_record(record).ok
    forfeit = play_fair("poker-dice", ["random", "random", "random"], 5, forfeit_turn=4)
    assert forfeit["turns"][3].get("forfeit") == "timeout" and forfeit["turns"][3]["rolls"]
    assert len(forfeit["turns"]) > 4  # two players played on after the forfeit
    assert verify_record(forfeit).ok


def first_thrown(record: dict[str, Any], at_least_turn: int = 3) -> tuple[int, int, int]:
    """(turn, roll, position), 1-based turn and roll: a thrown die of a later roll."""
    for t, turn in enumerate(record["turns"], start=1):
        if t < at_least_turn:
            continue
        for r, roll in enumerate(turn["rolls"], start=1):
            if r >= 2 and roll.get("keep"):
                return t, r, thrown_positions(roll["keep"])[0]
    raise AssertionError("no roll with held dice")


def test_an_altered_die_is_found_with_its_turn_and_roll() -> None:
    record = play_fair("yahtzee", ["greedy"], 3)
    turn, roll, position = first_thrown(record)
    bad = copy.deepcopy(record)
    dice = bad["turns"][turn - 1]["rolls"][roll - 1]["dice"]
    dice[position] = dice[position] % 6 + 1
    result = verify_record(bad)
    assert not result.ok and result.reason == "dice_differ"
    assert (result.turn, result.roll, result.position) == (turn, roll, position)
    assert result.message == f"turn {turn} roll {roll}: dice differ from the commitment"
    expected = record["turns"][turn - 1]["rolls"][roll - 1]["dice"]
    assert list(result.expected or ()) == expected


def test_seed_commitment_and_scheme_problems() -> None:
    record = play_fair("school", ["greedy"], 2)

    def changed(**entry: Any) -> dict[str, Any]:
        """The record with its `fair_dice` entry changed (a None value removes the key)."""
        out = copy.deepcopy(record)
        merged = {**out[RECORD_KEY], **entry}
        out[RECORD_KEY] = {key: value for key, value in merged.items() if value is not None}
        return out

    other_seed = "ff" + record[RECORD_KEY]["seed"][2:]
    cases = {
        "commitment_mismatch": changed(seed=other_seed),
        "no_seed": changed(seed=None),
        "bad_seed": changed(seed="xyz"),
        "bad_commitment": changed(commitment=None),
        "unknown_scheme": changed(scheme="dice-v0"),
    }
    for reason, bad in cases.items():
        result = verify_record(bad)
        assert not result.ok and result.reason == reason, (reason, result)
    # The right seed with a matching commitment for other dice: every roll differs.
    forged = changed(seed=other_seed, commitment=commitment(other_seed))
    result = verify_record(forged)
    assert result.reason == "dice_differ" and (result.turn, result.roll) == (1, 1)
    missing = {k: v for k, v in record.items() if k != RECORD_KEY}
    assert verify_record(missing).reason == "no_fair_dice"
    assert verify_record({"variant": "chess"}).reason == "bad_record"


def test_a_record_that_does_not_replay_is_reported_as_such() -> None:
    record = play_fair("school", ["greedy"], 4)
    bad = copy.deepcopy(record)
    bad["turns"][5]["move"] = "score no_such_row"
    result = verify_record(bad)
    assert result.reason == "bad_record" and result.turn == 6
    assert "turn 6" in result.message


# --- the command line -------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DICEPOKER, *args], capture_output=True, text=True, timeout=120)


def test_command_line_verify(tmp_path: Path) -> None:
    record = play_fair("yahtzee", ["greedy"], 6)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    ok = run_cli("verify", str(path))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == (
        f"dice verified: {rolls_in(record)} rolls match commitment "
        f"{record[RECORD_KEY]['commitment']}"
    )
    as_json = run_cli("verify", str(path), "--json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["ok"] is True

    turn, roll, position = first_thrown(record)
    bad = copy.deepcopy(record)
    bad["turns"][turn - 1]["rolls"][roll - 1]["dice"][position] ^= 7  # 1..6 -> 6..1, never equal
    path.write_text(json.dumps(bad))
    differ = run_cli("verify", str(path))
    assert differ.returncode == 1
    assert differ.stderr.strip() == (
        f"dicepoker: turn {turn} roll {roll}: dice differ from the commitment"
    )
    answer = json.loads(run_cli("verify", str(path), "--json").stdout)
    assert (answer["ok"], answer["turn"], answer["roll"]) == (False, turn, roll)

    del record[RECORD_KEY]["seed"]
    path.write_text(json.dumps(record))
    unrevealed = run_cli("verify", str(path))
    assert unrevealed.returncode == 1 and "seed is not revealed" in unrevealed.stderr
    path.write_text("{not json")
    broken = run_cli("verify", str(path))
    assert broken.returncode == 1 and "Traceback" not in broken.stderr
    assert len(broken.stderr.strip().splitlines()) == 1


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
    last = watcher.until(lambda m: m["type"] == "event" and m["state"]["finished"])
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
        before = server.get(f"/api/games/{game_id}")
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


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url)
    return config


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
                "2026-01-01 00:00:00.000000",
                "2026-01-01 00:00:00.000000",
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


def test_roll_sources_refuse_a_wrong_count() -> None:
    source = FairDice(EXAMPLE_SEED).for_roll(1, 2, [0, 1])
    assert source.positions == (2, 3, 4)
    with pytest.raises(ValueError):
        source.roll(2, 6)
    state = new_game(get_rules("school"), ["Ana"])
    first = FairDice(EXAMPLE_SEED).for_action(state, Roll(()))
    assert first is not None and first.roll(5, 6) == (4, 1, 4, 2, 5)


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


def test_the_check_in_the_documentation_works(tmp_path: Path) -> None:
    """docs/fair-dice.md's few lines of Python agree with verify_record."""
    doc = (Path(__file__).parent.parent / "docs" / "fair-dice.md").read_text(encoding="utf-8")
    section = doc.split("## The check in a few lines", 1)[1]
    script = section.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "check.py").write_text(script)
    record = play_fair("poker-dice", ["random", "random"], 3)  # a tie-break game
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))

    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(tmp_path / "check.py"), str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )

    ok = check()
    assert ok.returncode == 0 and ok.stdout.strip() == "dice verified", ok.stderr
    turn, roll, position = first_thrown(record)
    record["turns"][turn - 1]["rolls"][roll - 1]["dice"][position] ^= 7
    path.write_text(json.dumps(record))
    bad = check()
    assert bad.returncode == 1
    assert bad.stderr.strip() == f"turn {turn} roll {roll}: dice differ from the commitment"
    assert verify_record(record).message == bad.stderr.strip()


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
