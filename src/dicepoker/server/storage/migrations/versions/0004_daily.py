"""The daily challenge: each preset's seed of the day, its par, and the games played on it.

`games.reveal_at` withholds a game's seed past its end (a daily game's: until its day is over).
`daily` holds one row per preset and UTC day (the unique constraint makes every server process
agree on the seed); `daily_games` links each game to its day, one per account (rows without an
account, the anonymous players' games, never collide: NULLs are distinct).

Revision ID: 0004
Revises: 0003
Create Date: 2027-01-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("reveal_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "daily",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("par", sa.Integer(), nullable=True),
        sa.Column("par_claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("preset", "day", name="uq_daily_preset_day"),
    )
    op.create_table(
        "daily_games",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
            unique=True,
        ),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("preset", "day", "account_id", name="uq_daily_games_account"),
    )
    op.create_index("ix_daily_games_day", "daily_games", ["day"])


def downgrade() -> None:
    op.drop_index("ix_daily_games_day", table_name="daily_games")
    op.drop_table("daily_games")
    op.drop_table("daily")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("reveal_at")
