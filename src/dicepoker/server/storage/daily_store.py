"""The daily challenges in the database: each preset's day (seed, commitment, par) and its games.

Several server processes agree through the constraints: a day's row is inserted by whichever
process asks first (`INSERT ... ON CONFLICT DO NOTHING`, then everyone reads the stored row), a
game is stored with its link to the day in one transaction (a second game of an account on the
same day breaks the unique constraint and nothing is kept), and the par is computed by the one
process whose claim on it was written (`UPDATE ... WHERE par IS NULL AND unclaimed`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Select, and_, exc, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from dicepoker.master.store import ConflictError, StoredGame
from dicepoker.server.storage.models import DailyGameRow, DailyRow, GameRow, utcnow
from dicepoker.server.storage.store import Store, add_game


@dataclass(frozen=True)
class Day:
    """One preset's challenge of one day (the seed stays on the server until the day is over)."""

    id: int
    preset: str
    day: date
    seed: str = field(repr=False)
    commitment: str
    par: int | None


@dataclass(frozen=True)
class DailyEntry:
    """A game of a day: who plays it, its status and (once finished and counted) its score."""

    game_id: str
    account_id: int | None
    name: str
    status: str
    score: int | None
    created_at: datetime


class DailyTaken(Exception):
    """The account has a game of this preset's challenge on this day already."""

    def __init__(self, game_id: str | None) -> None:
        super().__init__(f"already played: {game_id}")
        self.game_id = game_id


def _day(row: DailyRow) -> Day:
    return Day(row.id, row.preset, row.day, row.seed, row.commitment, row.par)


class DailyStore:
    """The daily tables, through the games' store (its engine, and its queue of SQLite
    writers)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def day(self, preset: str, day: date) -> Day | None:
        async with self.store.sessions() as session:
            row = await session.scalar(
                select(DailyRow).where(DailyRow.preset == preset, DailyRow.day == day)
            )
            return None if row is None else _day(row)

    async def make_day(self, preset: str, day: date, seed: str, commitment: str) -> Day:
        """The day's row: inserted with this seed unless a row exists (made a moment ago by
        another process, perhaps), then read: every process gets the one stored row."""
        insert = sqlite_insert if self.store.is_sqlite else postgresql_insert
        statement = (
            insert(DailyRow)
            .values(preset=preset, day=day, seed=seed, commitment=commitment, created_at=utcnow())
            .on_conflict_do_nothing(index_elements=["preset", "day"])
        )
        async with self.store.transaction() as session:
            await session.execute(statement)
        found = await self.day(preset, day)
        if found is None:  # the row is never deleted: a read after the insert finds it
            raise RuntimeError(f"the daily row of {preset} {day} is missing")
        return found

    async def claim_par(self, day_id: int, now: datetime, stale: timedelta) -> bool:
        """Take on computing the day's par: True for the one caller whose claim was written (no
        par yet, and nobody's claim, or only one older than `stale`: its process died)."""
        async with self.store.transaction() as session:
            result = await session.execute(
                update(DailyRow)
                .where(
                    DailyRow.id == day_id,
                    DailyRow.par.is_(None),
                    or_(DailyRow.par_claimed_at.is_(None), DailyRow.par_claimed_at < now - stale),
                )
                .values(par_claimed_at=now)
            )
            return bool(result.rowcount == 1)  # type: ignore[attr-defined]

    async def set_par(self, day_id: int, par: int | None) -> None:
        """Store the par (None: the computation failed; the claim is released for a retry)."""
        values = {"par": par} if par is not None else {"par_claimed_at": None}
        async with self.store.transaction() as session:
            await session.execute(
                update(DailyRow).where(DailyRow.id == day_id, DailyRow.par.is_(None)).values(values)
            )

    async def add_game(
        self,
        game: StoredGame,
        day: Day,
        account_id: int | None,
        name: str,
        name_key: str | None = None,
    ) -> None:
        """Store a new game (with its seat's account link, for the player's history) and its
        link to the day in one transaction. DailyTaken: the account, or an account of that name
        before (`name_key`: deleted and made again), has a game of that day already; nothing is
        stored."""
        try:
            async with self.store.transaction() as session:
                await add_game(session, game)
                session.add(
                    DailyGameRow(
                        preset=day.preset,
                        day=day.day,
                        game_id=game.id,
                        account_id=account_id,
                        name=name,
                        name_key=name_key,
                        created_at=utcnow(),
                    )
                )
        except exc.IntegrityError:
            if account_id is not None:
                found = await self.account_game(day.preset, day.day, account_id, name_key)
                if found is not None:
                    raise DailyTaken(found.game_id) from None
            raise ConflictError(f"game {game.id} exists") from None

    def _entries(self) -> Select[DailyGameRow, str, list[Any]]:
        return select(DailyGameRow, GameRow.status, GameRow.seats).join(
            GameRow, GameRow.id == DailyGameRow.game_id
        )

    async def account_game(
        self, preset: str, day: date, account_id: int, name_key: str | None = None
    ) -> DailyEntry | None:
        """The account's game of the day, or, given its `name_key`, the game of an account of
        that name (one deleted since: a name plays a day once)."""
        whose = DailyGameRow.account_id == account_id
        if name_key is not None:
            whose = or_(whose, DailyGameRow.name_key == name_key)
        async with self.store.sessions() as session:
            found = (
                await session.execute(
                    self._entries()
                    .where(DailyGameRow.preset == preset, DailyGameRow.day == day, whose)
                    .order_by(DailyGameRow.id)
                )
            ).first()
            return None if found is None else _entry(*found)

    async def entries(self, preset: str, day: date) -> list[DailyEntry]:
        """Every game of the day, in the order they were started."""
        async with self.store.sessions() as session:
            rows = await session.execute(
                self._entries()
                .where(DailyGameRow.preset == preset, DailyGameRow.day == day)
                .order_by(DailyGameRow.created_at, DailyGameRow.id)
            )
            return [_entry(link, status, seats) for link, status, seats in rows]

    async def set_scores(self, scores: Sequence[tuple[str, int]]) -> None:
        """Keep the final scores of finished games (each game's once: a score never changes)."""
        if not scores:
            return
        async with self.store.transaction() as session:
            for game_id, score in scores:
                await session.execute(
                    update(DailyGameRow)
                    .where(and_(DailyGameRow.game_id == game_id, DailyGameRow.score.is_(None)))
                    .values(score=score)
                )


def _entry(link: DailyGameRow, status: str, seats: list[Any]) -> DailyEntry:
    """The entry of a link; its name is the game's seat's now (a deleted account's seat is
    renamed there), else the name it was started under."""
    created = link.created_at
    if created.tzinfo is None:  # SQLite hands datetimes back without their offset
        created = created.replace(tzinfo=UTC)
    seat = seats[0] if seats and isinstance(seats[0], dict) else {}
    name = seat.get("name") or link.name
    return DailyEntry(link.game_id, link.account_id, name, status, link.score, created)
