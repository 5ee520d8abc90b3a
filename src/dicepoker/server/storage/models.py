"""Database tables: games, their event log, imported records, accounts and their sessions, the
daily challenges, the puzzles made from finished games.

A game's state is never stored as such: it is the replay of its events (each accepted roll with
the faces thrown, each move) through the engine, so the database and the engine cannot disagree.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"
    # The sweep of abandoned games reads games by status and last person's action; every read
    # by status alone (the lobby's lists, the games to resume) through the same index, which
    # starts with it (migration 0008).
    # A record imported with a game's dice commitment is a copy of that game (fair play: no
    # analysis of a copy of a competitive game still running; migration 0009).
    __table_args__ = (
        Index("ix_games_status_human_at", "status", "human_at"),
        Index("ix_games_dice_commitment", "dice_commitment"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seats: Mapped[list[Any]] = mapped_column(JSON)  # [{kind, name, level, token_hash}]
    # open, running, finished, abandoned (nobody played it for too long: closed, migration 0006)
    status: Mapped[str] = mapped_column(String(16))
    seq: Mapped[int] = mapped_column(Integer, default=0)
    turn_seconds: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Fair dice (docs/fair-dice.md): the secret seed (64 hex, never sent before the game is over)
    # and its public SHA-256 commitment; both null for games made before migration 0002.
    dice_seed: Mapped[str | None] = mapped_column(String(64), nullable=True, default=None)
    dice_commitment: Mapped[str | None] = mapped_column(String(64), nullable=True, default=None)
    # Asked to be rated (migration 0003): rated at its end if every human seat is an account.
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    # A seed withheld past the game's end until this time (a daily challenge: the day's end,
    # migration 0004); null: revealed at the end.
    reveal_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, default=None
    )
    # The last action of a person (its creation, a seat taken, a person's own move; not a bot's
    # nor a turn clock's): a game idle since long ago is closed as abandoned (migration 0006;
    # null only in a row written by older code, where `updated_at` stands in).
    human_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, default=utcnow
    )
    # Whether the expert's help is open to its players (migration 0009): decided at creation;
    # null in a row written by older code, where the default rule stands in.
    assisted: Mapped[bool | None] = mapped_column(Boolean, nullable=True, default=None)


class EventRow(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # (read by game through the unique index on (game_id, seq), which starts with it)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
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


class AccountRow(Base):
    """A player's optional account. `name_key` (the name casefolded) makes names unique
    ignoring case; the password is kept only as its argon2id hash."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(20))
    name_key: Mapped[str] = mapped_column(String(80), unique=True)
    # The name's confusable skeleton (Unicode TR39, migration 0009): a look-alike of a name is
    # that name; null only for an account made before, whose skeleton an earlier name took.
    name_skeleton: Mapped[str | None] = mapped_column(
        String(128), unique=True, nullable=True, default=None
    )
    password_hash: Mapped[str] = mapped_column(String(200))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SessionRow(Base):
    """A logged-in browser: the SHA-256 of its cookie's token (the token itself is never
    stored), whose account it is and until when it is good."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AccountDeviceRow(Base):
    """A browser that logged in to the account with its password: the SHA-256 of its device
    cookie. Such a device is exempt from the per-name lockout that strangers' wrong guesses
    cause (OWASP's device cookies; migration 0009)."""

    __tablename__ = "account_devices"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    used_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GamePlayerRow(Base):
    """An account's seat in a game: a player's history, and the games whose seat is renamed
    to a neutral name when the account is deleted."""

    __tablename__ = "game_players"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RatingRow(Base):
    """An account's current rating in one pool (openskill's mu and sigma)."""

    __tablename__ = "ratings"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    # Indexed alone too: a pool's leaderboard reads it without an account.
    pool: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RatingChangeRow(Base):
    """What one rated game did to one account's rating (its graph and the end screen); the
    unique (game, account) pair makes sure a game is rated once, whichever process ends it."""

    __tablename__ = "rating_changes"
    __table_args__ = (UniqueConstraint("game_id", "account_id", name="uq_rating_changes_game"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    pool: Mapped[str] = mapped_column(String(40))
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GameResultRow(Base):
    """How one account's seat ended a finished game: a player's statistics are sums over
    these rows, written once when the game ends (`lost` and `decisions`, from the analysis,
    come a moment later: null until then)."""

    __tablename__ = "game_results"
    # The rows whose accuracy is not known yet (`Results.unknown`), a few among all (migration
    # 0007).
    __table_args__ = (
        Index(
            "ix_game_results_unknown",
            "game_id",
            sqlite_where=text("decisions IS NULL"),
            postgresql_where=text("decisions IS NULL"),
        ),
    )

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    variant: Mapped[str] = mapped_column(String(32))
    pool: Mapped[str] = mapped_column(String(40), index=True)
    players: Mapped[int] = mapped_column(Integer)
    score: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)  # 1 = first (shared places share the number)
    # How many seats of the game share this place, this one included (1: alone): a shared
    # first place counts as that share of a win.
    tied: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    zeros: Mapped[int] = mapped_column(Integer)
    stars: Mapped[int] = mapped_column(Integer)
    lost: Mapped[float | None] = mapped_column(Float, nullable=True)  # expected points lost
    decisions: Mapped[int | None] = mapped_column(Integer, nullable=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


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
    an account do not collide (NULLs are distinct in a unique constraint). A deleted account's
    games stay, unranked (and renamed in the game's seats, which the board shows)."""

    __tablename__ = "daily_games"
    __table_args__ = (
        UniqueConstraint("preset", "day", "account_id", name="uq_daily_games_account"),
        UniqueConstraint("preset", "day", "name_key", name="uq_daily_games_name"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    preset: Mapped[str] = mapped_column(String(32))
    day: Mapped[date] = mapped_column(Date, index=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), unique=True)
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True, default=None
    )
    name: Mapped[str] = mapped_column(String(64))
    # The account's `name_key` (migration 0009), kept when it is deleted: a name made again does
    # not play the same day twice.
    name_key: Mapped[str | None] = mapped_column(String(80), nullable=True, default=None)
    score: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PuzzleRow(Base):
    """A position of a finished game where a person lost at least a puzzle's worth of expected
    points (dicepoker.server.community.puzzles): the record up to the rolls of that turn (replaying
    it gives the position), whose decision it was, and what it lost when the game was analysed.
    What the best option is, is never stored: the advisor says it when a guess is judged. One
    row per decision (game, turn, roll); shown from `shown_from` (a daily game's puzzles wait
    for the end of its day, so that they show nobody that day's dice)."""

    __tablename__ = "puzzles"
    __table_args__ = (
        UniqueConstraint("game_id", "turn", "roll", name="uq_puzzles_decision"),
        Index("ix_puzzles_preset_id", "preset", "id"),
    )

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    preset: Mapped[str] = mapped_column(String(32))
    pool: Mapped[str] = mapped_column(String(40))
    variant: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    position: Mapped[dict[str, Any]] = mapped_column(JSON)
    seat: Mapped[int] = mapped_column(Integer)
    turn: Mapped[int] = mapped_column(Integer)  # 1-based record turn
    roll: Mapped[int] = mapped_column(Integer)  # rolls made in that turn before the decision
    played: Mapped[str] = mapped_column(String(64))
    loss: Mapped[float] = mapped_column(Float)
    shown_from: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PuzzleHarvestRow(Base):
    """A finished game whose puzzles were made (none, perhaps): written in the transaction that
    adds them, so that a game is harvested once, whichever process sees its end first."""

    __tablename__ = "puzzle_harvests"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    puzzles: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
