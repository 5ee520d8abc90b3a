"""Two indexes dropped whose first column starts another index of the same table, which serves
every read they served:

- `ix_events_game_id`: the unique index on `(game_id, seq)` reads a game's events (in order, as
  the game loads them) and serves the foreign key's cascade;
- `ix_games_status`: the index on `(status, human_at)` (the abandoned games' sweep) reads games
  by status (the lobby's lists, the games to resume).

Each was written for nothing: every committed event went into three indexes instead of two, and
every move that changes a game's indexed columns (a person's move: `human_at`) into three of the
games' indexes instead of two. After a steady load run (benchmarks/load.py, 4,000 games,
PostgreSQL) they held 6 MB of the events' 49 MB of indexes (read 156 times, the unique index
2,096) and 0.5 MB of the games' 3 MB (never read).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_events_game_id", table_name="events")
    op.drop_index("ix_games_status", table_name="games")


def downgrade() -> None:
    op.create_index("ix_games_status", "games", ["status"])
    op.create_index("ix_events_game_id", "events", ["game_id"])
