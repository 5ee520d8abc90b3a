"""`dicepoker admin` on SQLite and on PostgreSQL: list accounts, disable and enable one, reset a
password (asked twice, or from a file), delete an account (its games stay under the neutral name)
or a game (its events go with it). Unknown names and games: a clear error, exit status 1, and
nothing changed. The commands run through Typer's CliRunner on a real database, and what they did
is read back through the server's own store and accounts."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
import redis
from argon2 import PasswordHasher
from sqlalchemy import func, select
from typer.testing import CliRunner, Result

from dicepoker.cli import app
from dicepoker.dice import SeededDice
from dicepoker.master import GameMaster, Refusal, events
from dicepoker.master.store import StoredEvent, StoredGame
from dicepoker.server.community.accounts import DELETED_NAME, Account, Accounts
from dicepoker.server.runtime.bus import CHANNEL
from dicepoker.server.storage.models import EventRow, GamePlayerRow
from dicepoker.server.storage.store import Store, head_revision
from live_server import fresh_postgres_database, redis_url

T = TypeVar("T")
PASSWORD = "correct horse"
#: Cheap hashes for the accounts the tests make (the commands hash with the server's defaults).
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: a new SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        path = tmp_path / "games.db"
        path.touch()  # an empty file is an empty SQLite database
        return str(path)
    return fresh_postgres_database()


def on(database: str, work: Callable[[Store, Accounts], Awaitable[T]]) -> T:
    """Run `work` on the database through the server's store (migrated, as the server does)."""

    async def run() -> T:
        store = Store(database)
        try:
            await store.migrate()
            return await work(store, Accounts(store, hasher=FAST))
        finally:
            await store.close()

    return asyncio.run(run())


def admin(database: str, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(app, ["admin", *args, "--db", database], input=input)


def accounts_of(database: str) -> list[Account]:
    async def work(_store: Store, accounts: Accounts) -> list[Account]:
        return await accounts.everyone()

    return on(database, work)


def make_accounts(database: str, *names: str) -> dict[str, str]:
    """Create the accounts and log each in once: name -> its session token."""

    async def work(_store: Store, accounts: Accounts) -> dict[str, str]:
        tokens = {}
        for name in names:
            await accounts.create(name, PASSWORD)
            tokens[name] = (await accounts.login(name, PASSWORD))[1]
        return tokens

    return on(database, work)


def logs_in(database: str, name: str, password: str) -> str:
    """'ok' when the name and password log in, else the refusal's code."""

    async def work(_store: Store, accounts: Accounts) -> str:
        try:
            await accounts.check_login(name, password)
        except Refusal as refusal:
            return refusal.code
        return "ok"

    return on(database, work)


def session_of(database: str, token: str) -> str | None:
    async def work(_store: Store, accounts: Accounts) -> str | None:
        account = await accounts.by_session(token)
        return None if account is None else account.name

    return on(database, work)


def make_game(database: str, game_id: str, player: str | None = None) -> None:
    """A running game of a person (`player`'s account, if given: the store links the seat to
    it) and a bot, with two moves."""

    async def work(store: Store, accounts: Accounts) -> None:
        account = await accounts.by_name(player) if player else None
        human: dict[str, Any] = {"kind": "human", "name": player or "Guest"}
        if account is not None:
            human["account"] = account.id
        bot = {"kind": "bot", "name": "Greedy 2", "level": "greedy"}
        seats = [human, bot]
        await store.create_game(
            StoredGame(game_id, "yahtzee", {}, seats, "running", created_at=datetime.now())
        )
        await store.append(game_id, 0, StoredEvent(1, 0, "roll", [1, 2, 3, 4, 5], False), "running")
        await store.append(game_id, 1, StoredEvent(2, 0, "keep 0", [6, 6, 6, 6], False), "running")

    on(database, work)


def game_of(database: str, game_id: str) -> tuple[StoredGame | None, int]:
    """The stored game (None: gone) and how many event rows it has."""

    async def work(store: Store, _accounts: Accounts) -> tuple[StoredGame | None, int]:
        async with store.sessions() as session:
            count = await session.scalar(
                select(func.count()).select_from(EventRow).where(EventRow.game_id == game_id)
            )
        return await store.game(game_id), int(count or 0)

    return on(database, work)


def links_of(database: str, game_id: str) -> int:
    """How many of the game's seats are linked to an account (`game_players`)."""

    async def work(store: Store, _accounts: Accounts) -> int:
        async with store.sessions() as session:
            count = await session.scalar(
                select(func.count())
                .select_from(GamePlayerRow)
                .where(GamePlayerRow.game_id == game_id)
            )
        return int(count or 0)

    return on(database, work)


# --- listing, and the schema ---------------------------------------------------------------------


def test_an_empty_database_is_migrated_first(database: str) -> None:
    result = admin(database, "accounts")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "no accounts yet"

    async def work(store: Store, _accounts: Accounts) -> str | None:
        return await store._schema_version()

    assert on(database, work) == head_revision()


def test_accounts_lists_name_created_and_disabled(database: str) -> None:
    make_accounts(database, "Ana_1", "Bruno-Muñoz")
    bruno = next(a for a in accounts_of(database) if a.name == "Bruno-Muñoz")

    async def disable(_store: Store, accounts: Accounts) -> None:
        await accounts.set_disabled(bruno.id, True)

    on(database, disable)
    result = admin(database, "accounts")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["name", "created", "(UTC)", "disabled"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert set(rows) == {"Ana_1", "Bruno-Muñoz"}
    assert rows["Ana_1"][-1] == "no" and rows["Bruno-Muñoz"][-1] == "yes"
    day = bruno.created_at.strftime("%Y-%m-%d")
    assert rows["Bruno-Muñoz"][1] == day

    as_json = admin(database, "accounts", "--json")
    assert as_json.exit_code == 0, as_json.output
    listed = json.loads(as_json.output)["accounts"]
    assert [(a["name"], a["disabled"]) for a in listed] == [
        ("Ana_1", False),
        ("Bruno-Muñoz", True),
    ]
    assert datetime.fromisoformat(listed[1]["created_at"]) == bruno.created_at


def test_the_database_defaults_to_database_url_as_for_serve(database: str) -> None:
    make_accounts(database, "Env_Found")
    result = CliRunner(env={"DATABASE_URL": database}).invoke(app, ["admin", "accounts"])
    assert result.exit_code == 0, result.output
    assert "Env_Found" in result.output


def test_a_sqlite_file_that_is_not_there_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    result = admin(str(missing), "accounts")
    assert result.exit_code == 1
    assert "there is no database at" in result.output
    assert not missing.exists()  # nothing made


# --- disable, enable ---------------------------------------------------------------------------


def test_disable_logs_out_and_bars_login_until_enabled(database: str) -> None:
    tokens = make_accounts(database, "Carla", "Dario")
    result = admin(database, "disable", "carla")  # any case
    assert result.exit_code == 0, result.output
    assert "Carla is disabled" in result.output
    assert session_of(database, tokens["Carla"]) is None
    assert logs_in(database, "Carla", PASSWORD) == "account_disabled"
    assert session_of(database, tokens["Dario"]) == "Dario"  # the others are untouched
    again = admin(database, "disable", "Carla")
    assert again.exit_code == 0 and "already disabled" in again.output

    enabled = admin(database, "enable", "CARLA")
    assert enabled.exit_code == 0, enabled.output
    assert "Carla is enabled again" in enabled.output
    assert logs_in(database, "Carla", PASSWORD) == "ok"
    assert [a.disabled for a in accounts_of(database)] == [False, False]


# --- reset-password ----------------------------------------------------------------------------


def test_reset_password_asks_twice_hidden_and_ends_every_session(database: str) -> None:
    tokens = make_accounts(database, "Elena")
    new = "a brand new secret"
    result = admin(database, "reset-password", "Elena", input=f"{new}\n{new}\n")
    assert result.exit_code == 0, result.output
    assert "New password for Elena" in result.output
    assert new not in result.output  # the prompt does not show what is typed
    assert "Elena has a new password" in result.output
    assert logs_in(database, "Elena", new) == "ok"
    assert logs_in(database, "Elena", PASSWORD) == "bad_login"
    assert session_of(database, tokens["Elena"]) is None


def test_reset_password_with_two_different_answers_changes_nothing(database: str) -> None:
    make_accounts(database, "Fabio")
    result = admin(database, "reset-password", "Fabio", input="first answer\nsecond answer\n")
    assert result.exit_code == 1  # asked again, and the input ended
    assert "do not match" in result.output
    assert logs_in(database, "Fabio", PASSWORD) == "ok"


def test_reset_password_from_a_file_or_standard_input(database: str, tmp_path: Path) -> None:
    make_accounts(database, "Gala")
    file = tmp_path / "password.txt"
    file.write_text("from a file 1\nnot this line\n", encoding="utf-8")
    result = admin(database, "reset-password", "Gala", "--password-file", str(file))
    assert result.exit_code == 0, result.output
    assert logs_in(database, "Gala", "from a file 1") == "ok"

    piped = admin(database, "reset-password", "Gala", "--password-file", "-", input="piped in 22\n")
    assert piped.exit_code == 0, piped.output
    assert logs_in(database, "Gala", "piped in 22") == "ok"


def test_reset_password_refuses_a_bad_password_and_changes_nothing(
    database: str, tmp_path: Path
) -> None:
    tokens = make_accounts(database, "Hugo")
    short = tmp_path / "short.txt"
    short.write_text("short\n", encoding="utf-8")
    result = admin(database, "reset-password", "Hugo", "--password-file", str(short))
    assert result.exit_code == 1
    assert "a password is 8 to 200 characters long" in result.output
    missing = admin(database, "reset-password", "Hugo", "--password-file", str(tmp_path / "no"))
    assert missing.exit_code == 1 and "cannot read the password file" in missing.output
    assert logs_in(database, "Hugo", PASSWORD) == "ok"
    assert session_of(database, tokens["Hugo"]) == "Hugo"


# --- delete-account ----------------------------------------------------------------------------


def test_delete_account_asks_and_keeps_its_games_under_the_neutral_name(database: str) -> None:
    tokens = make_accounts(database, "Ines", "Jorge")
    make_game(database, "game-of-ines", "Ines")

    declined = admin(database, "delete-account", "Ines", input="n\n")
    assert declined.exit_code == 1
    assert "Delete the account Ines for ever?" in declined.output
    assert "nothing was changed" in declined.output
    assert [a.name for a in accounts_of(database)] == ["Ines", "Jorge"]

    result = admin(database, "delete-account", "ines", input="y\n")
    assert result.exit_code == 0, result.output
    assert "deleted the account Ines" in result.output
    assert [a.name for a in accounts_of(database)] == ["Jorge"]
    assert session_of(database, tokens["Ines"]) is None
    game, events = game_of(database, "game-of-ines")
    assert game is not None and events == 2  # the game stays, with its moves
    assert game.seats[0]["name"] == DELETED_NAME and "account" not in game.seats[0]
    assert game.seats[1]["name"] == "Greedy 2"

    quiet = admin(database, "delete-account", "Jorge", "--yes")
    assert quiet.exit_code == 0, quiet.output
    assert accounts_of(database) == []


# --- delete-game -------------------------------------------------------------------------------


def test_delete_game_takes_its_events_and_nothing_else(database: str) -> None:
    make_accounts(database, "Kai")
    make_game(database, "doomed", "Kai")
    make_game(database, "kept")

    assert links_of(database, "doomed") == 1
    declined = admin(database, "delete-game", "doomed", input="\n")  # the default is no
    assert declined.exit_code == 1
    assert "Delete the running game doomed" in declined.output
    assert game_of(database, "doomed")[0] is not None

    result = admin(database, "delete-game", "doomed", "--yes")
    assert result.exit_code == 0, result.output
    assert "deleted the game doomed" in result.output
    assert game_of(database, "doomed") == (None, 0)  # its events went by the cascade
    assert links_of(database, "doomed") == 0  # and its seat's link to the account
    game, events = game_of(database, "kept")
    assert game is not None and events == 2
    assert [a.name for a in accounts_of(database)] == ["Kai"]  # its player's account stays

    again = admin(database, "delete-game", "doomed", "--yes")
    assert again.exit_code == 1
    assert "there is no game 'doomed'" in again.output


# --- unknown names -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["disable", "Nobody"],
        ["enable", "Nobody"],
        ["reset-password", "Nobody"],
        ["delete-account", "Nobody", "--yes"],
        ["delete-account", "<b>Nobody</b>", "--yes"],
        ["delete-game", "no-such-game", "--yes"],
        ["delete-game", "../etc/passwd", "--yes"],
    ],
)
def test_unknown_names_and_games_change_nothing(database: str, command: list[str]) -> None:
    tokens = make_accounts(database, "Lia")
    make_game(database, "stays", "Lia")
    before = accounts_of(database)
    # (reset-password must not even ask for one: an answer is there in case it did)
    result = admin(database, *command, input="some password\nsome password\n")
    assert result.exit_code == 1
    assert "there is no" in result.output and "nothing was changed" in result.output
    assert "New password" not in result.output  # asked for nothing
    assert accounts_of(database) == before
    assert session_of(database, tokens["Lia"]) == "Lia"
    assert game_of(database, "stays")[1] == 2


def test_a_game_deleted_under_a_running_server_ends_there(database: str) -> None:
    """The server holds a game being played in memory; once it is deleted, its next move is
    refused as over (not `stale` for ever: its bots and clocks would try again and again), the
    server forgets it, and nothing of it is written back."""

    async def run() -> None:
        store = Store(database)
        await store.migrate()
        master = GameMaster(store, dice=SeededDice(1))
        await master.start()
        try:
            seats = [{"kind": "human", "name": "Mia"}]
            live, _tokens = await master.create("yahtzee", {}, seats, None)
            await master.act(live, 0, "roll")
            assert await store.delete_game(live.id)
            with pytest.raises(Refusal) as refused:
                await master.act(live, 0, "roll")
            assert refused.value.code == "game_over"
            assert await master.load(live.id) is None
            assert await store.game(live.id) is None and await store.events(live.id) == []
            # Told by another process (the admin's message through Redis): forgotten at once.
            watched, _tokens = await master.create("yahtzee", {}, seats, None)
            assert await store.delete_game(watched.id)
            assert watched.id in master.games
            await master.follow(watched.id, events.SeatsChanged(origin="admin"))
            assert watched.id not in master.games
        finally:
            await master.close()
            await store.close()

    asyncio.run(run())


# --- a server of several processes --------------------------------------------------------------


def test_the_processes_of_a_server_are_told_through_its_redis(database: str) -> None:
    """With `--redis-url`, every process that holds a changed game is told to read it again
    (the server's own message); an unreachable Redis changes nothing."""
    # (Other test runs share this Redis: games of ids of their own, channels of this test's.)
    kept, doomed = f"of-nora-{uuid.uuid4().hex[:8]}", f"to-go-{uuid.uuid4().hex[:8]}"
    make_accounts(database, "Nora")
    make_game(database, kept, "Nora")
    make_game(database, doomed)
    unreachable = "redis://127.0.0.1:9/0"
    gone = admin(database, "delete-account", "Nora", "--yes", "--redis-url", unreachable)
    assert gone.exit_code == 1 and "cannot reach Redis" in gone.output
    assert [a.name for a in accounts_of(database)] == ["Nora"]

    url = redis_url()
    listener = redis.Redis.from_url(url)
    channel = listener.pubsub(ignore_subscribe_messages=True)
    channel.subscribe(CHANNEL + kept, CHANNEL + doomed)
    try:
        for _ in range(2):  # the confirmations of the subscriptions (skipped)
            assert channel.get_message(timeout=5) is None
        result = admin(database, "delete-account", "Nora", "--yes", "--redis-url", url)
        assert result.exit_code == 0, result.output
        result = admin(database, "delete-game", doomed, "--yes", "--redis-url", url)
        assert result.exit_code == 0, result.output
        told: list[tuple[str, str]] = []
        for _ in range(2):
            message = channel.get_message(timeout=10)
            assert message is not None, told
            told.append((message["channel"].decode(), json.loads(message["data"])["kind"]))
        assert told == [(CHANNEL + kept, "seats"), (CHANNEL + doomed, "seats")]
    finally:
        channel.close()
        listener.close()
