"""Fair dice: each game's secret dice seed and its public commitment (docs/fair-dice.md).

Both columns are nullable: games made before this migration have neither and keep rolling
unpredictable dice without a commitment.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("dice_seed", sa.String(64), nullable=True))
    op.add_column("games", sa.Column("dice_commitment", sa.String(64), nullable=True))


def downgrade() -> None:
    # A batch operation so that SQLite, which cannot always drop a column in place, copies the
    # table instead; PostgreSQL drops the columns directly.
    with op.batch_alter_table("games") as batch:
        batch.drop_column("dice_commitment")
        batch.drop_column("dice_seed")
