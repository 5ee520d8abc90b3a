"""Puzzles from real games: positions of finished games where a person lost a lot.

`puzzles` holds one row per harvested decision (a record prefix to replay, whose decision, the
loss found when the game was analysed; never the best option), unique per (game, turn, roll);
`puzzle_harvests` one row per finished game whose puzzles were made, written in the same
transaction, so that a game is harvested once whichever process sees its end.

Revision ID: 0005
Revises: 0004
Create Date: 2027-02-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("pool", sa.String(40), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("position", sa.JSON(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("roll", sa.Integer(), nullable=False),
        sa.Column("played", sa.String(64), nullable=False),
        sa.Column("loss", sa.Float(), nullable=False),
        sa.Column("shown_from", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "turn", "roll", name="uq_puzzles_decision"),
    )
    op.create_index("ix_puzzles_game_id", "puzzles", ["game_id"])
    op.create_index("ix_puzzles_preset_id", "puzzles", ["preset", "id"])
    op.create_table(
        "puzzle_harvests",
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("puzzles", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_harvests")
    op.drop_index("ix_puzzles_preset_id", table_name="puzzles")
    op.drop_index("ix_puzzles_game_id", table_name="puzzles")
    op.drop_table("puzzles")
