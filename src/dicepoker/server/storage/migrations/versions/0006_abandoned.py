"""Games that end: `games.human_at`, the time of a game's last action by a person, and the
status `abandoned` for a game nobody played for too long (`dicepoker serve --abandon-after`).

Existing games take their `updated_at` as their last person's action (at worst a game lives a
little longer than it should). The index serves the sweep (by status, then by that time).

Revision ID: 0006
Revises: 0005
Create Date: 2027-03-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("human_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE games SET human_at = updated_at")
    op.create_index("ix_games_status_human_at", "games", ["status", "human_at"])


def downgrade() -> None:
    # Older code knows no `abandoned` games: they are unfinished again (it plays them on).
    op.execute("UPDATE games SET status = 'running' WHERE status = 'abandoned'")
    op.drop_index("ix_games_status_human_at", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("human_at")
