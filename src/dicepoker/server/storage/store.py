"""The master's store in a database: games, their numbered event log, and imported records.

SQLite (a file) by default, PostgreSQL through `DATABASE_URL`; both through SQLAlchemy's async
engine, with the schema made by Alembic migrations. An event is appended only if the game's
`seq` is still the one the caller read, so two writers can never both commit event N (the rule
of `dicepoker.master.store.Store`, which this implements).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    and_,
    delete,
    event,
    exc,
    insert,
    make_url,
    not_,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import URL, Dialect, Engine
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import ConnectionPoolEntry

from dicepoker.master.seats import ABANDONED, LIVE_STATUSES, moves_alone
from dicepoker.master.store import ConflictError, StoredEvent, StoredGame
from dicepoker.server.storage.batch_sql import PG_BATCH, SQLITE_BATCH, advance_games, statement_size
from dicepoker.server.storage.models import EventRow, GamePlayerRow, GameRow, RecordRow, utcnow

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = [
    "ConflictError",
    "Store",
    "StoredEvent",
    "StoredGame",
    "create_database",
    "database_url",
    "drop_database",
]

MIGRATIONS = Path(__file__).with_name("migrations")
# PostgreSQL connections kept open per process (a thousand live games keep about ten busy), and
# how long one may sit unused before it is checked (a ping) when it is taken again.
POOL_SIZE = 20
POOL_OVERFLOW = 20
IDLE_PING_SECONDS = 10.0
# Games whose seq one query reads (`seqs`): well within SQLite's and PostgreSQL's parameters.
SEQS_AT_ONCE = 500
_REVISION = re.compile(r"^(down_revision|revision)\s*(?::[^=]+)?=\s*['\"]?(\w+)", re.MULTILINE)


def alembic_config(url: str) -> Config:
    """Alembic's configuration for the server's migrations on `url` (an async driver's; a `%`
    in it, as in a percent-encoded password, is escaped from the configuration's own
    interpolation). Alembic is imported only here: a start with a current schema needs none."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


@functools.cache
def head_revision() -> str:
    """The newest migration's revision, read from the migration files (Alembic's "head")."""
    revisions: set[str] = set()
    downs: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        for kind, value in _REVISION.findall(path.read_text(encoding="utf-8")):
            (revisions if kind == "revision" else downs).add(value)
    heads = revisions - downs
    if len(heads) != 1:
        raise RuntimeError(f"the migrations must have one head, not {sorted(heads)}")
    return heads.pop()


async def _on_server(url: str, name: str, statement: str) -> URL:
    """Run `statement` (about database `name`, a plain name) outside any transaction on the
    PostgreSQL server of `url`; returns the server's URL."""
    if not name.isidentifier():
        raise ValueError(f"not a plain database name: {name!r}")
    base = make_url(database_url(url))
    engine = create_async_engine(base, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as connection:
            await connection.execute(text(statement))
    finally:
        await engine.dispose()
    return base


async def create_database(url: str, name: str) -> str:
    """Create PostgreSQL database `name` on the server of `url`; returns the new database's URL
    (for test and benchmark runs that must not share a database)."""
    base = await _on_server(url, name, f'CREATE DATABASE "{name}"')
    return base.set(database=name).render_as_string(hide_password=False)


async def drop_database(url: str, name: str) -> None:
    """Drop database `name` (made by `create_database`) from the server of `url`, with whatever
    connections are still open to it: a test or benchmark run leaves none behind."""
    await _on_server(url, name, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_url(value: str) -> str:
    """Accept a SQLite path or any SQLAlchemy URL; use the async drivers."""
    if "://" not in value:
        return f"sqlite+aiosqlite:///{Path(value).expanduser().resolve()}"
    if value.startswith("sqlite:///"):
        return "sqlite+aiosqlite:///" + value.removeprefix("sqlite:///")
    for prefix in ("postgresql://", "postgres://"):
        if value.startswith(prefix):
            return "postgresql+asyncpg://" + value.removeprefix(prefix)
    return value


def _idle_pinger(dialect: Dialect) -> Callable[[Any, ConnectionPoolEntry, Any], None]:
    """A checkout listener that checks a connection which sat unused a while before handing it
    out; a dead one is replaced (SQLAlchemy's pessimistic disconnect handling, limited to idle
    connections)."""

    def ping_if_idle(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        now = time.monotonic()
        idle = now - record.info.get("used", now)
        record.info["used"] = now
        if idle < IDLE_PING_SECONDS:
            return
        try:
            dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise exc.DisconnectionError(f"dropped a dead connection: {error}") from error

    return ping_if_idle


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


@dataclass
class _Append:
    game_id: str
    expected_seq: int
    stored: StoredEvent
    status: str
    future: asyncio.Future[None]
    person: bool = False


def _utc(moment: datetime | None) -> datetime | None:
    """A stored time with its UTC offset (SQLite hands datetimes back without one)."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


def stored_game(row: GameRow) -> StoredGame:
    return StoredGame(
        id=row.id,
        variant=row.variant,
        options=dict(row.options),
        seats=[dict(seat) for seat in row.seats],
        status=row.status,
        seq=row.seq,
        turn_seconds=row.turn_seconds,
        dice_seed=row.dice_seed,
        dice_commitment=row.dice_commitment,
        reveal_at=_utc(row.reveal_at),
        created_at=_utc(row.created_at),
        updated_at=_utc(row.updated_at),
        rated=bool(row.rated),
        human_at=_utc(row.human_at),
        assisted=row.assisted,
    )


def game_row(game: StoredGame) -> GameRow:
    row = GameRow(
        id=game.id,
        variant=game.variant,
        options=game.options,
        seats=game.seats,
        status=game.status,
        seq=game.seq,
        turn_seconds=game.turn_seconds,
        dice_seed=game.dice_seed,
        dice_commitment=game.dice_commitment,
        reveal_at=game.reveal_at,
        rated=game.rated,
        assisted=game.assisted,
    )
    if game.created_at is not None:
        row.created_at = row.updated_at = row.human_at = game.created_at
    if game.human_at is not None:
        row.human_at = game.human_at
    return row


async def add_game(session: AsyncSession, game: StoredGame) -> None:
    """Add a new game to a session's transaction: its row, then its seats' account links."""
    session.add(game_row(game))
    await session.flush()  # the game first: the seats' links refer to it
    _link_accounts(session, game.id, game.seats, [])


def _link_accounts(
    session: AsyncSession, game_id: str, seats: list[dict[str, Any]], before: list[Any]
) -> None:
    """A `game_players` row for each seat newly bound to an account (a player's history)."""
    for number, seat in enumerate(seats):
        account = seat.get("account")
        earlier = before[number] if number < len(before) else {}
        if account is not None and earlier.get("account") != account:
            session.add(GamePlayerRow(game_id=game_id, seat=number, account_id=int(account)))


class Store:
    """Async access to the database. `on_commit` is told the seconds of each commit of moves
    (the server's metrics, dicepoker.server.runtime.metrics)."""

    def __init__(self, url: str, on_commit: Callable[[float], None] | None = None) -> None:
        self.url = database_url(url)
        self.on_commit = on_commit
        self.is_sqlite = self.url.startswith("sqlite")
        if self.is_sqlite:
            self.engine: AsyncEngine = create_async_engine(self.url)
            sync_engine: Engine = self.engine.sync_engine
            event.listen(sync_engine, "connect", _sqlite_pragmas)
        else:
            # A pool large enough not to open and close connections under load, and a ping only
            # for a connection that sat unused (it may have died with a database restart): a
            # ping at every checkout was a tenth of the server's time under load. Last in, first
            # out: the connection used last is handed out again, so that a few backends do the
            # work while the others sleep.
            self.engine = create_async_engine(
                self.url, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW, pool_use_lifo=True
            )
            event.listen(self.engine.sync_engine, "checkout", _idle_pinger(self.engine.dialect))
        # The group commit's writer: on PostgreSQL a pool of its own, whose connections plan its
        # one statement once (a generic plan; left to itself PostgreSQL planned it again for
        # every batch, its arrays' sizes being known: 0.14 ms of its CPU a batch).
        self.commit_engine = self.engine
        if not self.is_sqlite:
            generic = {"server_settings": {"plan_cache_mode": "force_generic_plan"}}
            self.commit_engine = create_async_engine(
                self.url, pool_size=1, max_overflow=1, connect_args=generic
            )
            pinger = _idle_pinger(self.commit_engine.dialect)
            event.listen(self.commit_engine.sync_engine, "checkout", pinger)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # SQLite allows one writer at a time; queueing writers here is far cheaper than letting
        # them collide and wait in SQLite's busy handler.
        self._write_lock = asyncio.Lock() if self.is_sqlite else None
        self._pending: list[_Append] = []
        self._writer: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """Hold the process's write turn (SQLite's one writer); a no-op on PostgreSQL."""
        if self._write_lock is None:
            yield
            return
        async with self._write_lock:
            yield

    async def migrate(self) -> None:
        """Bring the schema to the newest migration (safe to run at every start)."""
        if await self._schema_version() == head_revision():
            return  # the usual start: nothing to do, and no need to load Alembic
        from alembic import command

        await asyncio.to_thread(command.upgrade, alembic_config(self.url), "head")

    async def _schema_version(self) -> str | None:
        try:
            async with self.engine.connect() as connection:
                result = await connection.execute(text("SELECT version_num FROM alembic_version"))
                return result.scalar_one_or_none()
        except Exception:  # no schema yet (or not one of ours): let Alembic decide
            return None

    async def close(self) -> None:
        await self.engine.dispose()
        await self.commit_engine.dispose()

    async def ping(self) -> None:
        """A trivial query through the pool (the readiness probe); raises when the database
        does not answer."""
        async with self.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))

    # --- games -----------------------------------------------------------------------------

    async def create_game(self, game: StoredGame) -> None:
        try:
            async with self.writing(), self.sessions() as session, session.begin():
                await add_game(session, game)
        except exc.IntegrityError:
            # The id is taken (a rematch made by another process a moment ago).
            raise ConflictError(f"game {game.id} exists") from None

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session in a transaction, for a write of several rows at once (SQLite's writers
        queued as every write of this store is)."""
        async with self.writing(), self.sessions() as session, session.begin():
            yield session

    async def game(self, game_id: str) -> StoredGame | None:
        async with self.sessions() as session:
            row = await session.get(GameRow, game_id)
            return None if row is None else stored_game(row)

    async def events(self, game_id: str, after: int = 0) -> list[StoredEvent]:
        async with self.sessions() as session:
            rows = await session.scalars(
                select(EventRow)
                .where(EventRow.game_id == game_id, EventRow.seq > after)
                .order_by(EventRow.seq)
            )
            return [
                StoredEvent(row.seq, row.seat, row.action, row.thrown, row.auto) for row in rows
            ]

    async def seqs(self, game_ids: Sequence[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        async with self.sessions() as session:
            for start in range(0, len(game_ids), SEQS_AT_ONCE):
                ids = list(game_ids[start : start + SEQS_AT_ONCE])
                rows = await session.execute(
                    select(GameRow.id, GameRow.seq).where(GameRow.id.in_(ids))
                )
                for game_id, seq in rows:
                    found[game_id] = seq
        return found

    async def append(
        self,
        game_id: str,
        expected_seq: int,
        stored: StoredEvent,
        status: str,
        *,
        person: bool = False,
    ) -> None:
        """Commit event `expected_seq + 1` (and the game's new status) or raise ConflictError
        (also once the game is abandoned); `person`: a person's own intent (`human_at`).

        Appends from many games that arrive together are committed in one transaction (group
        commit); each caller still returns only once its own event is durable.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(_Append(game_id, expected_seq, stored, status, future, person))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())
        await future

    async def _write_pending(self) -> None:
        # PostgreSQL: one connection for the writer's whole run of batches. A checkout from the
        # pool and its return for each batch cost the server as much CPU as the batch's
        # statement. A failed batch lets it go: it may be what
        # failed.
        held: AsyncConnection | None = None
        try:
            while self._pending:
                # One append per game a batch (a game's next append waits for the one before),
                # and on SQLite at most SQLITE_BATCH games (the rest wait for the next batch).
                most = SQLITE_BATCH if self.is_sqlite else len(self._pending)
                batch: list[_Append] = []
                later: list[_Append] = []
                games: set[str] = set()
                for item in self._pending:
                    full = len(batch) >= most
                    (later if full or item.game_id in games else batch).append(item)
                    games.add(item.game_id)
                self._pending = later
                started = time.perf_counter()
                try:
                    if self.is_sqlite:
                        await self._write_batch(batch)
                    else:
                        held = held or await self.commit_engine.connect()
                        await self._write_batch_postgresql(batch, held)
                except Exception as exc:  # the whole transaction failed: tell every waiter
                    for item in batch:
                        if not item.future.done():
                            item.future.set_exception(exc)
                    if held is not None:
                        with contextlib.suppress(Exception):  # already broken: nothing to undo
                            await held.invalidate()
                        held = None
                else:
                    if self.on_commit is not None:
                        self.on_commit(time.perf_counter() - started)
        finally:
            if held is not None:
                with contextlib.suppress(Exception):  # a broken one is the pool's to replace
                    await held.close()

    async def _write_batch(self, batch: list[_Append]) -> None:
        now = utcnow()
        accepted: list[_Append] = []
        params: dict[str, Any] = {"now": now}
        for n, item in enumerate(batch):
            params.update(
                {
                    f"id{n}": item.game_id,
                    f"old{n}": item.expected_seq,
                    f"new{n}": item.stored.seq,
                    f"status{n}": item.status,
                    f"person{n}": int(item.person),
                }
            )
        size = statement_size(len(batch))
        for n in range(len(batch), size):  # rows that match no game
            params.update({f"id{n}": None, f"old{n}": None, f"new{n}": None})
            params.update({f"status{n}": None, f"person{n}": None})
        async with self.writing(), self.engine.begin() as connection:
            # One statement moves every game of the batch that is still where its writer saw
            # it, and names them; a game that moved on meanwhile is left alone (a conflict).
            result = await connection.execute(advance_games(size), params)
            moved = set(result.scalars())
            for item in batch:
                if item.game_id in moved:
                    accepted.append(item)
                else:
                    item.future.set_exception(
                        ConflictError(f"game {item.game_id} moved past seq {item.expected_seq}")
                    )
            if accepted:
                await connection.execute(
                    insert(EventRow),
                    [
                        {
                            "game_id": item.game_id,
                            "seq": item.stored.seq,
                            "seat": item.stored.seat,
                            "action": item.stored.action,
                            "thrown": item.stored.thrown,
                            "auto": item.stored.auto,
                            "created_at": now,
                        }
                        for item in accepted
                    ],
                )
        for item in accepted:
            if not item.future.done():
                item.future.set_result(None)

    async def _write_batch_postgresql(self, batch: list[_Append], held: AsyncConnection) -> None:
        raw = await held.get_raw_connection()
        driver: Any = raw.driver_connection  # asyncpg's, outside any transaction
        rows = await driver.fetch(
            PG_BATCH,
            [item.game_id for item in batch],
            [item.expected_seq for item in batch],
            [item.stored.seq for item in batch],
            [item.status for item in batch],
            [item.stored.seat for item in batch],
            [item.stored.action for item in batch],
            [
                None if item.stored.thrown is None else json.dumps(item.stored.thrown)
                for item in batch
            ],
            [item.stored.auto for item in batch],
            utcnow(),
            [item.person for item in batch],
        )
        moved = {row[0] for row in rows}
        for item in batch:
            if item.future.done():
                continue
            if item.game_id in moved:
                item.future.set_result(None)
            else:
                item.future.set_exception(
                    ConflictError(f"game {item.game_id} moved past seq {item.expected_seq}")
                )

    async def update_seats(
        self, game_id: str, seats: list[dict[str, Any]], status: str, expected: list[Any]
    ) -> bool:
        """Replace the seats if they are still `expected` (so two joins cannot take one seat)."""
        async with self.writing(), self.sessions() as session, session.begin():
            row = await session.get(GameRow, game_id, with_for_update=not self.is_sqlite)
            if row is None or row.status == ABANDONED or row.seats != expected:
                return False
            row.seats = seats
            row.status = status
            row.updated_at = row.human_at = utcnow()
            _link_accounts(session, game_id, seats, expected)
            return True

    async def delete_game(self, game_id: str) -> bool:
        """Delete a game (`dicepoker admin delete-game`); its events, and every other row that
        refers to it, go with it by the foreign keys' cascade. False: there is no such game."""
        async with self.writing(), self.sessions() as session, session.begin():
            result = await session.execute(delete(GameRow).where(GameRow.id == game_id))
            return bool(getattr(result, "rowcount", 0))

    async def list_games(self, status: str | None, limit: int) -> Sequence[StoredGame]:
        async with self.sessions() as session:
            query = select(GameRow).order_by(GameRow.updated_at.desc()).limit(limit)
            if status:
                query = query.where(GameRow.status == status)
            return [stored_game(row) for row in await session.scalars(query)]

    async def unfinished(self) -> list[str]:
        async with self.sessions() as session:
            rows = await session.scalars(
                select(GameRow.id).where(GameRow.status.in_(LIVE_STATUSES))
            )
            return list(rows)

    async def moving_alone(self) -> list[str]:
        """The running games with a bot's seat or a turn clock (read in one query; the seats
        are looked at here, as JSON is read alike by both databases)."""
        async with self.sessions() as session:
            rows = await session.execute(
                select(GameRow.id, GameRow.seats, GameRow.turn_seconds).where(
                    GameRow.status == "running"
                )
            )
            return [row.id for row in rows if moves_alone(row.seats, row.turn_seconds)]

    async def abandon(self, idle_since: datetime) -> list[str]:
        """One `UPDATE ... RETURNING`: a game moves to `abandoned` once, in whichever process
        runs it first (a concurrent append or join either comes first, and the game is no
        longer idle, or finds the game abandoned and is refused). A running rated game with a
        clock is never closed so: its clock plays on (resumed at a start) until it ends with a
        result, and closing it would let its loser escape the loss (docs/ratings.md)."""
        idle_since = idle_since.astimezone(UTC)
        idle = or_(
            GameRow.human_at < idle_since,
            and_(GameRow.human_at.is_(None), GameRow.updated_at < idle_since),
        )
        clocked_rated = and_(
            GameRow.status == "running", GameRow.rated.is_(True), GameRow.turn_seconds > 0
        )
        statement = (
            update(GameRow)
            .where(GameRow.status.in_(LIVE_STATUSES), idle, not_(clocked_rated))
            .values(status=ABANDONED, updated_at=utcnow())
            .returning(GameRow.id)
        )
        async with self.writing(), self.engine.begin() as connection:
            return list((await connection.execute(statement)).scalars())

    # --- imported records ------------------------------------------------------------------

    async def save_record(self, record_id: str, text: str) -> None:
        async with self.writing(), self.sessions() as session, session.begin():
            session.add(RecordRow(id=record_id, record=text))

    async def games_committed_to(self, commitment: str, most: int = 1) -> list[str]:
        """The ids of (at most `most`) games whose dice are committed to by `commitment`: a
        record carrying it is a copy of one of them (a daily challenge's games share their
        day's)."""
        query = select(GameRow.id).where(GameRow.dice_commitment == commitment).limit(most)
        async with self.sessions() as session:
            return list((await session.scalars(query)).all())

    async def record(self, record_id: str) -> str | None:
        async with self.sessions() as session:
            row = await session.get(RecordRow, record_id)
            return row.record if row else None
