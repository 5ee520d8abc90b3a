"""Backups of the server's database: `dicepoker backup FILE` and `dicepoker restore FILE`.

A backup is one SQLite file, whichever database it came from: every table of the server's
database and every row, at the schema version (Alembic's) of the database it was taken from,
marked as a backup in SQLite's header (its application id). One portable format, so a backup of
SQLite restores into PostgreSQL and the other way round, with no tool but dicepoker.

- From SQLite it is SQLite's online backup API (`sqlite3.Connection.backup`), in one step: a
  consistent snapshot of the database, taken while the server goes on writing (the store runs
  SQLite in WAL mode, where a reader holds up no writer).
- From PostgreSQL it is a logical export, in one read-only REPEATABLE READ transaction (one
  snapshot of every table): the file's schema is made by the same migrations at the database's
  revision, then every table found in the database is copied into it, row by row.

Tables are copied generically (what the database holds, found by reflection, in the order of
their foreign keys), so a table or column that a later migration adds is carried with no change
here. Restoring copies the file back (SQLite: the backup API again; PostgreSQL: the schema made by
the migrations at the backup's revision, then the rows, then the id sequences moved past them)
and migrates the database to this dicepoker's newest schema, as `dicepoker serve` would.

A backup holds what the database holds, the accounts' password hashes included, so it is
readable by its owner only (`BACKUP_MODE`, 0600) from the moment its partial file is created:
a mode set once the file is written would leave a window when anyone on the machine could open
it, and SQLite gives the journal it writes beside the file the file's own mode.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Integer, MetaData, Table, insert, make_url, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from dicepoker.server.storage.models import Base
from dicepoker.server.storage.store import Store, alembic_config, database_url, head_revision

#: "DPKB" in a backup's SQLite header (`PRAGMA application_id`): what makes a file a backup.
BACKUP_ID = 0x44504B42
#: A backup's permissions: its owner reads and writes it, nobody else (it holds password hashes).
BACKUP_MODE = 0o600
#: Rows copied per statement.
BATCH = 1000
VERSION_TABLE = "alembic_version"


class BackupError(Exception):
    """A refusal or a failure, said in one line for the person at the command line; when a
    command refuses, it has changed nothing."""


@dataclass(frozen=True)
class Backup:
    """What a backup holds: its schema's revision, its tables, its games and their events."""

    path: Path
    revision: str
    tables: tuple[str, ...]
    games: int
    events: int


def describe(error: BaseException) -> str:
    """A database error in the driver's own words (not SQLAlchemy's wrapping of them)."""
    if isinstance(error, DBAPIError) and error.orig is not None:
        error = error.orig
    words = str(error).strip().splitlines()
    return words[0] if words else type(error).__name__


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None: not SQLite)."""
    if not url.startswith("sqlite"):
        return None
    name = make_url(url).database
    if not name or name == ":memory:":
        raise BackupError("a backup needs a database in a file or a server, not in memory")
    return Path(name)


def _file_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


@contextlib.contextmanager
def _sqlite(path: Path, *, read_only: bool = False) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection to an existing file (it is never created by mistake)."""
    uri = path.resolve().as_uri() + ("?mode=ro" if read_only else "?mode=rw")
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as error:
        raise BackupError(f"cannot open {path}: {error}") from None
    try:
        connection.execute("PRAGMA busy_timeout=5000")
        yield connection
    finally:
        connection.close()


def _tables(connection: sqlite3.Connection) -> set[str]:
    rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(row[0]) for row in rows}


def _count(connection: sqlite3.Connection, table: str, tables: set[str]) -> int:
    if table not in tables:
        return 0
    return int(connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])


def read_backup(path: Path) -> Backup:
    """The backup in `path`; BackupError when the file is not one (or cannot be read)."""
    if not path.is_file():
        raise BackupError(f"there is no file {path}")
    not_one = f"{path} is not a dicepoker backup (made by `dicepoker backup`)"
    try:
        with _sqlite(path, read_only=True) as connection:
            if connection.execute("PRAGMA application_id").fetchone()[0] != BACKUP_ID:
                raise BackupError(not_one)
            tables = _tables(connection)
            if VERSION_TABLE not in tables or "games" not in tables:
                raise BackupError(not_one)
            revision = connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone()
            if revision is None:
                raise BackupError(not_one)
            return Backup(
                path=path,
                revision=str(revision[0]),
                tables=tuple(sorted(t for t in tables - {VERSION_TABLE} if t[:7] != "sqlite_")),
                games=_count(connection, "games", tables),
                events=_count(connection, "events", tables),
            )
    except sqlite3.DatabaseError:  # not SQLite at all ("file is not a database")
        raise BackupError(not_one) from None


def known_revision(revision: str, whose: str = "the backup's") -> None:
    """Refuse a schema this dicepoker's migrations do not know (a backup of a newer one)."""
    from alembic.script import ScriptDirectory

    config = alembic_config("sqlite://")
    try:
        found = ScriptDirectory.from_config(config).get_revision(revision)
    except Exception:  # Alembic's "no such revision", whatever its class
        found = None
    if found is None:
        raise BackupError(
            f"{whose} schema ({revision}) is not one this dicepoker knows (its newest is "
            f"{head_revision()}): use the dicepoker version that made it, or a newer one"
        )


def _upgrade(url: str, revision: str) -> None:
    """Make the schema of `revision` (the migrations run their own event loop: call it on a
    thread of its own)."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)


# --- backup ------------------------------------------------------------------------------------


def backup(database: str, destination: Path) -> Backup:
    """Back the database up into `destination` (written whole, then moved into place: a file
    that is there is either the old backup or the new one). An existing file is replaced only
    when it is a backup itself."""
    url = database_url(database)
    destination = destination.expanduser().absolute()
    if destination.is_dir():
        raise BackupError(f"{destination} is a folder: give the backup file's name")
    if not destination.parent.is_dir():
        raise BackupError(f"there is no folder {destination.parent}")
    if not os.access(destination.parent, os.W_OK | os.X_OK):
        raise BackupError(f"cannot write in the folder {destination.parent}")
    if destination.exists():
        try:
            read_backup(destination)
        except BackupError:
            raise BackupError(
                f"{destination} exists and is not a dicepoker backup: it was left as it was "
                "(give another name)"
            ) from None
    partial = destination.with_name(f".{destination.name}.{secrets.token_hex(4)}.part")
    try:
        # An empty file is an empty SQLite database; made with the backup's mode, never wider.
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, BACKUP_MODE))
        source = sqlite_path(url)
        if source is not None:
            _backup_sqlite(source, partial)
        else:
            asyncio.run(_export(url, partial))
        _seal(partial)
        os.replace(partial, destination)
    except (OSError, sqlite3.Error) as error:  # a folder not writable, a full disk, ...
        said = getattr(error, "strerror", None) or error
        raise BackupError(f"cannot write {destination}: {said}") from None
    finally:
        partial.unlink(missing_ok=True)
    return read_backup(destination)


def _backup_sqlite(source: Path, partial: Path) -> None:
    if not source.is_file():
        raise BackupError(f"there is no database at {source}")
    try:
        with _sqlite(source) as connection:
            tables = _tables(connection)
            if VERSION_TABLE not in tables or "games" not in tables:
                raise BackupError(f"{source} is not a dicepoker database")
            target = sqlite3.connect(partial)
            try:
                # One step (every page at once): a consistent snapshot, and no restart when the
                # server writes meanwhile; in WAL mode the server's writers do not wait for it.
                connection.backup(target)
            finally:
                target.close()
    except sqlite3.DatabaseError as error:
        raise BackupError(f"cannot back up {source}: {error}") from None


def _seal(partial: Path) -> None:
    """Make the copy one self-contained file marked as a backup, check it, and sync it."""
    with _sqlite(partial) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")  # no -wal file beside it
        connection.execute(f"PRAGMA application_id={BACKUP_ID}")
        connection.commit()
        check = connection.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise BackupError(f"the backup failed its check ({check}); nothing was written")
    with partial.open("rb") as file:
        os.fsync(file.fileno())


async def _export(url: str, partial: Path) -> None:
    """PostgreSQL into the SQLite file: one snapshot of every table."""
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
            async with connection.begin():
                revision = await _revision(connection)
                if revision is None:
                    raise BackupError("the database holds no dicepoker schema")
                known_revision(revision, "the database's")
                await asyncio.to_thread(_upgrade, _file_url(partial), revision)
                file = create_async_engine(_file_url(partial))
                try:
                    async with file.begin() as target:
                        await _copy(connection, target, whole=False)
                finally:
                    await file.dispose()
    except (SQLAlchemyError, OSError) as error:
        raise BackupError(f"cannot back up the database: {describe(error)}") from None
    finally:
        await engine.dispose()


async def _revision(connection: AsyncConnection) -> str | None:
    tables = await connection.run_sync(_reflect)
    if VERSION_TABLE not in tables.tables or "games" not in tables.tables:
        return None
    result = await connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))
    found = result.scalar_one_or_none()
    return None if found is None else str(found)


def _reflect(connection: Connection) -> MetaData:
    metadata = MetaData()
    metadata.reflect(connection)
    return metadata


def _rows(target: Table, chunk: Any) -> list[dict[str, Any]]:
    """The rows as the target takes them: a time without a zone is UTC (SQLite keeps none)."""
    zoned = [
        column.name
        for column in target.columns
        if isinstance(column.type, DateTime) and column.type.timezone
    ]
    rows = [dict(row._mapping) for row in chunk]
    for row in rows:
        for name in zoned:
            moment = row.get(name)
            if isinstance(moment, datetime) and moment.tzinfo is None:
                row[name] = moment.replace(tzinfo=UTC)
    return rows


async def _copy(source: AsyncConnection, target: AsyncConnection, *, whole: bool) -> None:
    """Copy every row of every table of `source` into the same (empty) tables of `target`, in
    the order of their foreign keys; the schema version is the target's own already. `whole`:
    every table of the source must be there (a backup's); else a table that the schema does
    not have is not dicepoker's (a database shared with something else) and is left out."""
    origin = await source.run_sync(_reflect)
    into = await target.run_sync(_reflect)
    missing = sorted(set(origin.tables) - set(into.tables))
    if missing and whole:
        raise BackupError(f"the schema has no table {', '.join(missing)}; nothing was copied")
    for table in into.sorted_tables:
        if table.name == VERSION_TABLE or table.name not in origin.tables:
            continue
        source_table = origin.tables[table.name]
        lost = sorted(set(source_table.columns.keys()) - set(table.columns.keys()))
        if lost:
            raise BackupError(f"the table {table.name} has no column {', '.join(lost)}")
        query = select(source_table).order_by(*source_table.primary_key.columns)
        result = await source.stream(query)
        async for chunk in result.partitions(BATCH):
            await target.execute(insert(table), _rows(table, chunk))


# --- restore -----------------------------------------------------------------------------------


def restore(path: Path, database: str, *, force: bool = False) -> Backup:
    """Restore the backup into the database (refused, changing nothing, when the database holds
    games or accounts, unless `force`), then migrate it to the newest schema."""
    found = read_backup(path.expanduser().absolute())
    known_revision(found.revision)
    url = database_url(database)
    target = sqlite_path(url)
    if target is not None:
        _restore_sqlite(found, target, force)
    else:
        asyncio.run(_restore_postgresql(found, url, force))
    asyncio.run(_migrate(url))
    return found


def _holding(what: dict[str, int], where: str) -> BackupError:
    said = " and ".join(f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in what.items() if n)
    return BackupError(
        f"the database at {where} holds {said}: restoring would replace them; add --force "
        "to do so (nothing was changed)"
    )


def _restore_sqlite(found: Backup, target: Path, force: bool) -> None:
    target = target.absolute()
    if target.exists() and target.samefile(found.path):
        raise BackupError("the backup and the database are the same file")
    if not target.parent.is_dir():
        raise BackupError(f"there is no folder {target.parent}")
    if target.exists():
        try:
            with _sqlite(target) as connection:
                tables = _tables(connection)
                held = {
                    kind: _count(connection, f"{kind}s", tables) for kind in ("game", "account")
                }
        except sqlite3.DatabaseError:
            raise BackupError(f"{target} is not a SQLite database; nothing was changed") from None
        if any(held.values()) and not force:
            raise _holding(held, str(target))
    try:
        with _sqlite(found.path, read_only=True) as source:
            destination = sqlite3.connect(target)
            try:
                destination.execute("PRAGMA busy_timeout=5000")
                source.backup(destination)  # replaces every page of the database
                destination.execute("PRAGMA application_id=0")  # a database, not a backup
                destination.commit()
            finally:
                destination.close()
    except sqlite3.DatabaseError as error:
        raise BackupError(f"cannot restore into {target}: {error}") from None


async def _restore_postgresql(found: Backup, url: str, force: bool) -> None:
    engine = create_async_engine(url)
    where = make_url(url).render_as_string(hide_password=True)
    try:
        async with engine.begin() as connection:
            present = await connection.run_sync(_reflect)
            held: dict[str, int] = {}
            for kind in ("game", "account"):
                if f"{kind}s" in present.tables:
                    count = await connection.execute(text(f"SELECT count(*) FROM {kind}s"))
                    held[kind] = int(count.scalar_one())
            if any(held.values()) and not force:
                raise _holding(held, where)
            # The schema is made again at the backup's revision: away with ours first.
            ours = {*Base.metadata.tables, *found.tables, VERSION_TABLE}
            doomed = [table for table in present.sorted_tables if table.name in ours]
            await connection.run_sync(lambda sync: present.drop_all(sync, tables=doomed))
        await asyncio.to_thread(_upgrade, url, found.revision)
        file = create_async_engine(_file_url(found.path))
        try:
            async with file.connect() as source, engine.begin() as target:
                await _copy(source, target, whole=True)
                await _move_sequences(target)
        finally:
            await file.dispose()
    except (SQLAlchemyError, OSError) as error:
        raise BackupError(f"cannot restore into {where}: {describe(error)}") from None
    finally:
        await engine.dispose()


async def _move_sequences(connection: AsyncConnection) -> None:
    """Each id sequence (a table's SERIAL key) past the largest id restored, so that the next
    row the server adds gets a new id."""
    metadata = await connection.run_sync(_reflect)
    quote = connection.dialect.identifier_preparer.quote
    for table in metadata.sorted_tables:
        keys = list(table.primary_key.columns)
        if len(keys) != 1 or not isinstance(keys[0].type, Integer):
            continue
        sequence = await connection.execute(
            text("SELECT pg_get_serial_sequence(:table, :column)"),
            {"table": table.name, "column": keys[0].name},
        )
        name = sequence.scalar_one_or_none()
        if name is None:
            continue
        largest = f"SELECT COALESCE(MAX({quote(keys[0].name)}), 0) + 1 FROM {quote(table.name)}"
        await connection.execute(
            text(f"SELECT setval(:sequence, ({largest}), false)"), {"sequence": name}
        )


async def _migrate(url: str) -> None:
    store = Store(url)
    try:
        await store.migrate()
    except (SQLAlchemyError, OSError) as error:
        raise BackupError(f"cannot migrate the restored database: {describe(error)}") from None
    finally:
        await store.close()
