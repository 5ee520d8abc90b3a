"""`dicepoker backup` and `dicepoker restore`, on SQLite and on PostgreSQL (and from one to the
other): a backup taken while a real server serves (bots writing meanwhile) is a consistent
snapshot; restored into a fresh database, a new server has every game with the same events,
the accounts and their sessions and ratings, the imported records, and continues every unfinished
game. Refusals (a file that is not a backup, a database that holds games) say one line, exit 1
and change nothing."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import stat
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from alembic import command
from typer.testing import CliRunner, Result

from dicepoker.cli import app
from dicepoker.master.store import StoredEvent, StoredGame
from dicepoker.server.community.accounts import COOKIE
from dicepoker.server.storage import backup as backup_module
from dicepoker.server.storage.backup import BACKUP_ID, BACKUP_MODE
from dicepoker.server.storage.store import Store, alembic_config, head_revision
from live_server import LiveServer, fresh_postgres_database
from ws_client import Player

T = TypeVar("T")
PASSWORD = "correct horse battery"
Events = list[tuple[int, int, str, Any, bool]]


def fresh(kind: str, folder: Path, name: str) -> str:
    """A new, empty database of that kind: a SQLite file's path, or a PostgreSQL URL."""
    return str(folder / name) if kind == "sqlite" else fresh_postgres_database()


def on(database: str, work: Callable[[Store], Awaitable[T]]) -> T:
    async def run() -> T:
        store = Store(database)
        try:
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(run())


def stored(database: str) -> dict[str, tuple[StoredGame, Events]]:
    """Every game of the database and its events, read through the server's own store."""

    async def work(store: Store) -> dict[str, tuple[StoredGame, Events]]:
        found: dict[str, tuple[StoredGame, Events]] = {}
        for game in await store.list_games(None, 1000):
            events = [
                (e.seq, e.seat, e.action, e.thrown, e.auto) for e in await store.events(game.id)
            ]
            found[game.id] = (game, events)
        return found

    return on(database, work)


def in_backup(path: Path) -> dict[str, tuple[int, str, Events]]:
    """Every game of a backup file (its seq, its status) and its events, read with plain sqlite3
    (read-only: the file stays as it was)."""
    with sqlite3.connect(path.as_uri() + "?mode=ro", uri=True) as connection:
        games = connection.execute("SELECT id, seq, status FROM games").fetchall()
        rows = connection.execute(
            "SELECT game_id, seq, seat, action, thrown, auto FROM events ORDER BY game_id, seq"
        ).fetchall()
    events: dict[str, Events] = {game_id: [] for game_id, _, _ in games}
    for game_id, seq, seat, action, thrown, auto in rows:
        loaded = None if thrown is None else json.loads(thrown)
        events[game_id].append((seq, seat, action, loaded, bool(auto)))
    return {game_id: (seq, status, events[game_id]) for game_id, seq, status in games}


def cli(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def one_clear_line(result: Result, *words: str) -> None:
    """Refused: exit status 1, one line naming the problem, no traceback."""
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dicepoker: "), result.output
    assert "Traceback" not in result.output and "Error" not in result.output
    for word in words:
        assert word in lines[0], lines[0]


def play_to_end(player: Player) -> None:
    while not player.state["finished"]:
        if player.my_turn():
            player.play_turn()
        else:
            player.recv()


def settled(game: dict[str, Any]) -> dict[str, Any]:
    """A game as the API shows it, less the chances of winning (judged in memory, a moment
    after each event, and never stored)."""
    return {key: value for key, value in game.items() if key != "win_probability"}


def create(server: LiveServer, client: httpx.Client | None, body: dict[str, Any]) -> Any:
    response = (client or httpx.Client()).post(server.url + "/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


@pytest.mark.parametrize(
    ("source_kind", "target_kind"),
    [
        ("sqlite", "sqlite"),
        ("postgresql", "postgresql"),
        ("sqlite", "postgresql"),
        ("postgresql", "sqlite"),
    ],
)
def test_a_backup_taken_while_serving_restores_to_a_server_that_continues_every_game(
    source_kind: str, target_kind: str, tmp_path: Path
) -> None:
    source = fresh(source_kind, tmp_path, "live.db")
    backup_file = tmp_path / "backup.db"
    # Bots that take a moment per action: the bots' game is still being written during the backup.
    server = LiveServer(source, bot_delay=0.03).start()
    try:
        ana = httpx.Client(base_url=server.url, timeout=10.0, headers={"Origin": server.url})
        signed = ana.post("/api/accounts", json={"name": "Ana", "password": PASSWORD})
        assert signed.status_code == 201, signed.text
        session = signed.cookies[COOKIE]
        seats = [{"kind": "human", "account": True}, {"kind": "bot", "level": "greedy"}]
        rated = create(server, ana, {"variant": "yahtzee", "seats": seats, "rated": True})
        player = Player(server.ws_url, rated["id"], rated["seats"][0]["token"])
        play_to_end(player)
        player.close()
        # Her rating and the game's result (score, place) are written after the game ends, one
        # after the other: the page is read once both are there.
        page = server.wait_for(
            "/api/players/Ana",
            lambda p: bool(p["ratings"]) and all(g["score"] is not None for g in p["games"]),
        )

        people = [{"kind": "human", "name": "Bea"}, {"kind": "human", "name": "Cid"}]
        unfinished = create(
            server, None, {"variant": "school", "options": {"columns": 1}, "seats": people}
        )
        tokens = [seat["token"] for seat in unfinished["seats"]]
        bea = Player(server.ws_url, unfinished["id"], tokens[0])
        bea.play_turn()
        bea.close()
        cid = Player(server.ws_url, unfinished["id"], tokens[1])
        assert cid.act("roll", cid.seq)["type"] == "event"

        record = server.get(f"/api/games/{rated['id']}/record")
        imported = server.post("/api/records", record)
        assert imported.status_code in (200, 201), imported.text
        record_id = imported.json()["id"]

        quiet = {
            game_id: settled(server.get(f"/api/games/{game_id}"))
            for game_id in (rated["id"], unfinished["id"])
        }
        bots = create(
            server,
            None,
            {"variant": "yahtzee", "seats": [{"kind": "bot", "level": "greedy"}] * 4},
        )
        server.wait_for(f"/api/games/{bots['id']}", lambda g: g["seq"] > 0)

        made = cli("backup", str(backup_file), "--db", source)
        assert made.exit_code == 0, made.output
        assert "backed up 3 games" in made.output

        # The server goes on after the backup; this move is not in it.
        answer = cid.act(cid.state["turn"]["legal"][0]["action"], cid.seq)
        assert answer["type"] == "event", answer
        cid.close()
    finally:
        server.stop()

    # The backup is one consistent snapshot: each game's events are exactly 1..seq.
    backed = in_backup(backup_file)
    assert set(backed) == {rated["id"], unfinished["id"], bots["id"]}
    for seq, _status, events in backed.values():
        assert [event[0] for event in events] == list(range(1, seq + 1))
    assert backed[bots["id"]][1] == "running"  # taken while the bots were playing
    live = stored(source)
    for game_id, (seq, _status, events) in backed.items():
        assert live[game_id][1][:seq] == events  # what the server had at that moment
    assert backed[unfinished["id"]][0] == quiet[unfinished["id"]]["seq"] == 3
    assert live[unfinished["id"]][0].seq == 4  # the move made after the backup

    target = fresh(target_kind, tmp_path, "restored.db")
    restored = cli("restore", str(backup_file), "--db", target)
    assert restored.exit_code == 0, restored.output
    assert "restored 3 games" in restored.output
    assert backup_file.read_bytes()[68:72] == BACKUP_ID.to_bytes(4, "big")  # left as it was
    again = stored(target)
    assert {game_id: events for game_id, (_, events) in again.items()} == {
        game_id: events for game_id, (_, _, events) in backed.items()
    }
    for game_id, (game, _events) in again.items():
        before = live[game_id][0]
        assert (game.seats, game.dice_seed, game.rated, game.created_at) == (
            before.seats,
            before.dice_seed,
            before.rated,
            before.created_at,
        )

    server = LiveServer(target, bot_delay=0.0).start()
    try:
        for game_id, info in quiet.items():
            assert settled(server.get(f"/api/games/{game_id}")) == info
        assert server.get(f"/api/records/{record_id}")["turns"] == record["turns"]
        now = server.get("/api/players/Ana")
        assert (now["ratings"], now["games"]) == (page["ratings"], page["games"])

        # The session made before the backup is still good; the password too.
        ana = httpx.Client(base_url=server.url, timeout=10.0, headers={"Origin": server.url})
        ana.cookies.set(COOKIE, session)
        assert ana.get("/api/me").json()["name"] == "Ana"
        login = httpx.post(server.url + "/api/session", json={"name": "Ana", "password": PASSWORD})
        assert login.status_code == 200, login.text
        dan = httpx.post(server.url + "/api/accounts", json={"name": "Dan", "password": PASSWORD})
        assert dan.status_code == 201, dan.text  # new ids follow the restored ones

        # The unfinished games go on: a person's move is taken, the bots play on.
        cid = Player(server.ws_url, unfinished["id"], tokens[1])
        assert cid.seq == 3 and cid.my_turn()
        answer = cid.act(cid.state["turn"]["legal"][0]["action"], cid.seq)
        assert answer["type"] == "event" and answer["seq"] == 4, answer
        cid.close()
        resumed = backed[bots["id"]][0]
        server.wait_for(f"/api/games/{bots['id']}", lambda g: g["seq"] > resumed + 3)
    finally:
        server.stop()


# --- refusals ----------------------------------------------------------------------------------


def make_games(database: str, count: int, first: int = 0) -> None:
    """`count` running games (g<first>, ...) of a person and a bot, with one roll each, made
    through the store."""

    async def work(store: Store) -> None:
        await store.migrate()
        for n in range(first, first + count):
            seats = [{"kind": "human", "name": "Guest"}, {"kind": "bot", "level": "greedy"}]
            game = StoredGame(f"g{n}", "yahtzee", {}, seats, "running", created_at=_now())
            await store.create_game(game)
            event = StoredEvent(1, 0, "roll", [1, 2, 3, 4, 5], False)
            await store.append(game.id, 0, event, "running")

    on(database, work)


def _now() -> datetime:
    return datetime.now(UTC)


def game_ids(database: str) -> set[str]:
    return set(stored(database))


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_restore_refuses_a_database_that_holds_games_unless_forced(
    kind: str, tmp_path: Path
) -> None:
    source = str(tmp_path / "source.db")
    make_games(source, 2)
    backup_file = tmp_path / "backup.db"
    assert cli("backup", str(backup_file), "--db", source).exit_code == 0

    target = fresh(kind, tmp_path, "target.db")
    make_games(target, 3)
    refused = cli("restore", str(backup_file), "--db", target)
    one_clear_line(refused, "holds 3 games", "--force", "nothing was changed")
    assert game_ids(target) == {"g0", "g1", "g2"}

    forced = cli("restore", str(backup_file), "--db", target, "--force")
    assert forced.exit_code == 0, forced.output
    assert game_ids(target) == {"g0", "g1"}
    assert stored(target)["g0"][1] == [(1, 0, "roll", [1, 2, 3, 4, 5], False)]


def test_restore_refuses_a_file_that_is_not_a_backup(tmp_path: Path) -> None:
    target = str(tmp_path / "target.db")
    make_games(target, 1)
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a database\n" * 100)
    empty = tmp_path / "empty.db"
    empty.touch()
    plain_database = tmp_path / "plain.db"
    make_games(str(plain_database), 1)  # a dicepoker database, but not made by `backup`
    for path in (text_file, empty, plain_database):
        refused = cli("restore", str(path), "--db", target, "--force")
        one_clear_line(refused, str(path), "not a dicepoker backup")
    one_clear_line(cli("restore", str(tmp_path / "missing.db"), "--db", target), "no file")
    # A backup of a newer dicepoker (a schema this one does not know) is refused too.
    newer = tmp_path / "newer.db"
    assert cli("backup", str(newer), "--db", str(plain_database)).exit_code == 0
    with sqlite3.connect(newer) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    one_clear_line(cli("restore", str(newer), "--db", target, "--force"), "(9999)", head_revision())
    assert game_ids(target) == {"g0"}


def test_backup_refuses_to_write_over_a_file_that_is_not_a_backup(tmp_path: Path) -> None:
    database = str(tmp_path / "live.db")
    make_games(database, 1)
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    one_clear_line(cli("backup", str(precious), "--db", database), "not a dicepoker backup")
    assert precious.read_text() == "keep me"
    # The database itself is no backup either: it is left alone.
    one_clear_line(cli("backup", database, "--db", database), "not a dicepoker backup")
    assert game_ids(database) == {"g0"}
    nowhere = str(tmp_path / "none.db")
    one_clear_line(cli("backup", str(tmp_path / "b.db"), "--db", nowhere), "no database")
    assert not (tmp_path / "none.db").exists() and not (tmp_path / "b.db").exists()

    # An older backup is replaced by the newer one.
    backup_file = tmp_path / "backup.db"
    assert cli("backup", str(backup_file), "--db", database).exit_code == 0
    make_games(database, 1, first=1)
    assert cli("backup", str(backup_file), "--db", database).exit_code == 0
    assert set(in_backup(backup_file)) == {"g0", "g1"}
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_restore_migrates_an_older_backup_to_the_newest_schema(tmp_path: Path) -> None:
    """A backup of a database at an older schema is brought to the newest on restore (the
    rows of the older schema are kept)."""
    older = tmp_path / "older.db"
    command.upgrade(alembic_config(f"sqlite+aiosqlite:///{older}"), "0001")
    with sqlite3.connect(older) as connection:
        connection.execute(
            "INSERT INTO games (id, variant, options, seats, status, seq, turn_seconds, "
            "created_at, updated_at) VALUES ('old', 'yahtzee', '{}', '[]', 'open', 0, 0, "
            "'2026-01-01 00:00:00', '2026-01-01 00:00:00')"
        )
    backup_file = tmp_path / "backup.db"
    made = cli("backup", str(backup_file), "--db", str(older))
    assert made.exit_code == 0 and "schema 0001" in made.output, made.output
    target = tmp_path / "target.db"
    assert cli("restore", str(backup_file), "--db", str(target)).exit_code == 0
    with sqlite3.connect(target) as connection:
        version = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert version == (head_revision(),)
    assert game_ids(str(target)) == {"old"}


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_backup_is_its_owner_s_alone_from_its_first_byte(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It holds the accounts' password hashes: 0600 under a umask that would let anyone read a
    new file, while it is being written as well as once written, and when it replaces an older
    backup that was readable by all."""
    database = fresh(kind, tmp_path, "live.db")
    make_games(database, 1)
    modes_while_written: list[int] = []
    seal = backup_module._seal

    def sealing(partial: Path) -> None:
        modes_while_written.append(stat.S_IMODE(partial.stat().st_mode))
        seal(partial)

    monkeypatch.setattr(backup_module, "_seal", sealing)
    backup_file = tmp_path / "backup.db"
    before = os.umask(0)
    try:
        made = cli("backup", str(backup_file), "--db", database)
        assert made.exit_code == 0, made.output
        assert "readable by its owner only (0600" in made.output
        assert stat.S_IMODE(backup_file.stat().st_mode) == BACKUP_MODE == 0o600
        backup_file.chmod(0o644)  # an older backup, made before backups were private
        assert cli("backup", str(backup_file), "--db", database).exit_code == 0
        assert stat.S_IMODE(backup_file.stat().st_mode) == 0o600
    finally:
        os.umask(before)
    assert modes_while_written == [0o600, 0o600]
    assert set(in_backup(backup_file)) == {"g0"}
