"""Database tables: games, their event log, imported records, and the daily challenges.

A game's state is never stored as such: it is the replay of its events (each accepted roll with
the faces thrown, each move) through the engine, so the database and the engine cannot disagree.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Date,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seats: Mapped[list[Any]] = mapped_column(JSON)  # [{kind, name, level, token_hash}]
    status: Mapped[str] = mapped_column(String(16), index=True)  # open, running, finished
    seq: Mapped[int] = mapped_column(Integer, default=0)
    turn_seconds: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Fair dice (docs/fair-dice.md): the secret seed (64 hex, never sent before the game is over)
    # and its public SHA-256 commitment; both null for games made before migration 0002.
    dice_seed: Mapped[str | None] = mapped_column(String(64), nullable=True, default=None)
    dice_commitment: Mapped[str | None] = mapped_column(String(64), nullable=True, default=None)
    # A seed withheld past the game's end until this time (a daily challenge: the day's end,
    # migration 0004); null: revealed at the end.
    reveal_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, default=None
    )


class EventRow(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(64))
    thrown: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    auto: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RecordRow(Base):
    __tablename__ = "records"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    record: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class DailyRow(Base):
    """One preset's challenge of one UTC day: its secret seed (made once: the unique constraint
    lets every server process agree on it) and commitment, and the expert's par on those dice
    (`par_claimed_at`: when a process took on computing it, so that only one does)."""

    __tablename__ = "daily"
    __table_args__ = (UniqueConstraint("preset", "day", name="uq_daily_preset_day"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    preset: Mapped[str] = mapped_column(String(32))
    day: Mapped[date] = mapped_column(Date)
    seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    par: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    par_claimed_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, default=None
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class DailyGameRow(Base):
    """A game of a day's challenge: who plays it (an account, or nobody: unranked) under which
    name, and its final score once known. One game per account, preset and day; rows without
    an account do not collide (NULLs are distinct in a unique constraint)."""

    __tablename__ = "daily_games"
    __table_args__ = (
        UniqueConstraint("preset", "day", "account_id", name="uq_daily_games_account"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    preset: Mapped[str] = mapped_column(String(32))
    day: Mapped[date] = mapped_column(Date, index=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), unique=True)
    account_id: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    name: Mapped[str] = mapped_column(String(64))
    score: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
