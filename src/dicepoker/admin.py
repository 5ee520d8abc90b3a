"""`dicepoker admin`: what a self-hoster needs to run a community, on the server's database.

List the accounts, disable one (logged out everywhere at once) or enable it again, reset a
password, delete an account (its games stay, under a neutral name) or a game (its events go with
it), delete the expired login sessions. Each command opens the database the way `dicepoker serve`
does (`--db`, else `$DATABASE_URL`, else the SQLite file in the user data folder; a SQLite file
must exist), brings its schema to the newest migration first, and changes nothing when it refuses
(an unknown name or game: exit status 1).
The server may keep running: it reads accounts and sessions from the database at every request
(docs/deploy.md, "Running a community").

The server's modules are imported when a command runs: `dicepoker.cli` imports this module, and
it is also what a bot worker process imports first.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer

if TYPE_CHECKING:
    from dicepoker.server.community.accounts import Account, Accounts
    from dicepoker.server.runtime.bus import RedisBus
    from dicepoker.server.storage.store import Store

T = TypeVar("T")
#: What a game id can be (as the pages' addresses take it): anything else is no game.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")

admin_app = typer.Typer(
    no_args_is_help=True,
    help="Run a community: accounts and games on the server's database.",
)

Database = Annotated[
    str | None,
    typer.Option(
        "--db",
        "--database",
        help="SQLite file or database URL, as `dicepoker serve` takes it (default: "
        "$DATABASE_URL, else the SQLite file in the user data folder).",
    ),
]
Name = Annotated[str, typer.Argument(help="The account's name (in any case).")]
Yes = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask to confirm.")]
Redis = Annotated[
    str | None,
    typer.Option(
        "--redis-url",
        envvar="REDIS_URL",
        help="The Redis of a server of several processes (`serve --redis-url`; default: "
        "$REDIS_URL): its processes are told of the change at once.",
    ),
]


def fail(message: str) -> NoReturn:
    """One clear line on standard error and exit status 1: never a traceback."""
    typer.echo(f"dicepoker admin: {message}", err=True)
    raise typer.Exit(1)


def on_database(database: str | None, work: Callable[[Store, Accounts], Awaitable[T]]) -> T:
    """Run `work` on the database, its schema migrated first (as the server does at start)."""
    from sqlalchemy import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from dicepoker.master import Refusal
    from dicepoker.server.community.accounts import Accounts
    from dicepoker.server.settings import default_database
    from dicepoker.server.storage.store import Store, database_url

    url = database_url(database or default_database())
    if url.startswith("sqlite"):
        path = make_url(url).database
        if path and not Path(path).is_file():
            fail(f"there is no database at {path} (give the server's --db)")

    async def run() -> T:
        store = Store(url)
        try:
            try:
                await store.migrate()
            except (SQLAlchemyError, OSError) as error:
                fail(f"cannot open the database: {error}")
            return await work(store, Accounts(store))
        except Refusal as refusal:
            fail(refusal.message)
        finally:
            await store.close()

    return asyncio.run(run())


async def account_named(accounts: Accounts, name: str) -> Account:
    """The account called `name` (in any case), or exit 1 saying there is none."""
    account = await accounts.by_name(name)
    if account is None:
        fail(f"there is no account named {name!r}; nothing was changed")
    return account


class Servers:
    """The running server's processes, reached through their Redis (`serve --redis-url`), told
    of games changed in the database under them; without Redis, nobody is told (a process reads
    a game's seats again when it loads the game)."""

    def __init__(self, redis_url: str | None) -> None:
        self.redis_url = redis_url or None
        self.bus: RedisBus | None = None

    async def reach(self) -> None:
        """Connect before anything changes: an unreachable Redis changes nothing."""
        if self.redis_url is None:
            return
        from dicepoker.server.runtime.bus import RedisBus

        bus = RedisBus(self.redis_url)
        try:
            await bus.client.ping()
        except Exception as error:
            await bus.client.aclose()
            fail(f"cannot reach Redis at {self.redis_url}: {error}; nothing was changed")
        self.bus = bus

    async def tell(self, game_ids: list[str]) -> None:
        """Every process that holds one of these games reads it again from the database (the
        server's own message for seats changed outside a master; a deleted game is forgotten)."""
        if self.bus is None:
            return
        from dicepoker.master.events import SeatsChanged

        for game_id in game_ids:
            await self.bus.publish(game_id, SeatsChanged())

    async def close(self) -> None:
        """Send what was told (the bus queues its messages) and disconnect."""
        if self.bus is not None:
            await self.bus.close()


def confirm(question: str) -> None:
    """Ask `question`; anything but yes changes nothing (exit status 1)."""
    if not typer.confirm(question, default=False):
        fail("nothing was changed")


# --- accounts ----------------------------------------------------------------------------------


@admin_app.command("accounts")
def accounts_command(
    database: Database = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """List the accounts: name, when it was created (UTC), whether it is disabled."""

    async def work(_store: Store, accounts: Accounts) -> list[Account]:
        return await accounts.everyone()

    found = on_database(database, work)
    if as_json:
        rows = [
            {"name": a.name, "created_at": a.created_at.isoformat(), "disabled": a.disabled}
            for a in found
        ]
        typer.echo(json.dumps({"accounts": rows}, ensure_ascii=False))
        return
    if not found:
        typer.echo("no accounts yet")
        return
    width = max(len("name"), *(len(a.name) for a in found))
    typer.echo(f"{'name':<{width}}  {'created (UTC)':<16}  disabled")
    for account in found:
        created = account.created_at.strftime("%Y-%m-%d %H:%M")
        typer.echo(f"{account.name:<{width}}  {created:<16}  {'yes' if account.disabled else 'no'}")


def _set_disabled(database: str | None, name: str, disabled: bool) -> None:
    async def work(_store: Store, accounts: Accounts) -> str:
        account = await account_named(accounts, name)
        if account.disabled == disabled:
            return f"{account.name} was already {'disabled' if disabled else 'enabled'}"
        await accounts.set_disabled(account.id, disabled)
        if disabled:
            return f"{account.name} is disabled: logged out everywhere, and cannot log in"
        return f"{account.name} is enabled again"

    typer.echo(on_database(database, work))


@admin_app.command("disable")
def disable_command(name: Name, database: Database = None) -> None:
    """Disable an account: its sessions end at once and it cannot log in (its games stay)."""
    _set_disabled(database, name, True)


@admin_app.command("enable")
def enable_command(name: Name, database: Database = None) -> None:
    """Enable a disabled account again."""
    _set_disabled(database, name, False)


def read_password(path: Path) -> str:
    """The password in the file's first line (its line end not part of it); '-': standard
    input."""
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        fail(f"cannot read the password file: {error}")
    lines = text.splitlines()
    return lines[0] if lines else ""


@admin_app.command("reset-password")
def reset_password_command(
    name: Name,
    password_file: Annotated[
        Path | None,
        typer.Option(
            help="Read the new password from this file's first line ('-': standard input) "
            "instead of asking for it.",
        ),
    ] = None,
    database: Database = None,
) -> None:
    """Give an account a new password (asked twice, not shown); its sessions all end."""

    async def work(_store: Store, accounts: Accounts) -> str:
        from dicepoker.server.community.accounts import check_password

        account = await account_named(accounts, name)
        if password_file is not None:
            password = read_password(password_file)
        else:
            password = typer.prompt(
                f"New password for {account.name}", hide_input=True, confirmation_prompt=True
            )
        await accounts.set_password(account.id, check_password(password))
        return f"{account.name} has a new password; every session of it has ended"

    typer.echo(on_database(database, work))


@admin_app.command("delete-account")
def delete_account_command(
    name: Name, yes: Yes = False, database: Database = None, redis_url: Redis = None
) -> None:
    """Delete an account, its sessions and ratings; its games stay, its seats renamed."""

    async def work(_store: Store, accounts: Accounts) -> str:
        from dicepoker.server.community.accounts import DELETED_NAME

        account = await account_named(accounts, name)
        if not yes:
            confirm(
                f"Delete the account {account.name} for ever? Its games stay, its seats in "
                f"them named {DELETED_NAME!r}."
            )
        servers = Servers(redis_url)
        await servers.reach()
        try:
            renamed = await accounts.delete(account.id)
            await servers.tell(renamed)
        finally:
            await servers.close()
        return (
            f"deleted the account {account.name}; "
            f"its seats in {len(renamed)} game(s) are named {DELETED_NAME!r} now"
        )

    typer.echo(on_database(database, work))


@admin_app.command("purge-sessions")
def purge_sessions_command(database: Database = None) -> None:
    """Delete every expired login session now (the server deletes them too, as people log in)."""

    async def work(_store: Store, accounts: Accounts) -> str:
        return f"deleted {await accounts.purge_expired()} expired session(s)"

    typer.echo(on_database(database, work))


# --- games -------------------------------------------------------------------------------------


@admin_app.command("delete-game")
def delete_game_command(
    game_id: Annotated[str, typer.Argument(metavar="ID", help="The game's id (as in /g/ID).")],
    yes: Yes = False,
    database: Database = None,
    redis_url: Redis = None,
) -> None:
    """Delete a game, its moves and everything that refers to it, for ever."""

    async def work(store: Store, _accounts: Accounts) -> str:
        game = await store.game(game_id) if GAME_ID.fullmatch(game_id) else None
        if game is None:
            fail(f"there is no game {game_id!r}; nothing was changed")
        if not yes:
            players = ", ".join(str(seat.get("name") or "open seat") for seat in game.seats)
            confirm(
                f"Delete the {game.status} game {game.id} ({game.variant}: {players}) for ever?"
            )
        servers = Servers(redis_url)
        await servers.reach()
        try:
            if not await store.delete_game(game.id):
                fail(f"the game {game_id!r} was deleted meanwhile")
            await servers.tell([game.id])
        finally:
            await servers.close()
        return f"deleted the game {game.id}"

    typer.echo(on_database(database, work))
