"""The results whose accuracy is not known yet, indexed: `game_results` rows whose `decisions`
are null (a partial index on SQLite and PostgreSQL alike). The accuracy sweep at a server's start
and every finished game's own look ask for them (`Results.unknown`); without the index each read
the whole table, which grows with every account's every game, while the rows it looks for are
the few games of the last moments.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

UNKNOWN = sa.text("decisions IS NULL")


def upgrade() -> None:
    op.create_index(
        "ix_game_results_unknown",
        "game_results",
        ["game_id"],
        sqlite_where=UNKNOWN,
        postgresql_where=UNKNOWN,
    )


def downgrade() -> None:
    op.drop_index("ix_game_results_unknown", table_name="game_results")
