"""Fair play (issue 54): what a game allows, who played a day's challenge, names that do not
deceive, devices that logged in before.

- `games.assisted`: whether the game allows the expert's help (hints, advice, the analysis of a
  running game), decided at its creation; null for games made before, which keep the default rule
  (`dicepoker.master.assistance`).
- `ix_games_dice_commitment`: a record imported with a game's dice commitment is a copy of that
  game, and a copy of a competitive game still running is not analysed.
- `daily_games.name_key`: the `name_key` of the account that played a ranked daily game, kept when
  the account is deleted, so that an account made again under the same name does not play that day
  twice (unique with the preset and the day; unranked games have none).
- `accounts.name_skeleton`: the confusable skeleton of the name (Unicode TR39), unique, so that a
  look-alike of a name is taken (filled by migration 0010).
- `account_devices`: the devices (browsers) that logged in to an account with its password before:
  the SHA-256 of their device cookie, which exempts them from the per-name login lockout.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("assisted", sa.Boolean(), nullable=True))
    op.create_index("ix_games_dice_commitment", "games", ["dice_commitment"])
    with op.batch_alter_table("daily_games") as batch:
        batch.add_column(sa.Column("name_key", sa.String(80), nullable=True))
        batch.create_unique_constraint("uq_daily_games_name", ["preset", "day", "name_key"])
    op.execute(
        "UPDATE daily_games SET name_key = "
        "(SELECT accounts.name_key FROM accounts WHERE accounts.id = daily_games.account_id) "
        "WHERE account_id IS NOT NULL"
    )
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("name_skeleton", sa.String(128), nullable=True))
        batch.create_unique_constraint("uq_accounts_name_skeleton", ["name_skeleton"])
    op.create_table(
        "account_devices",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("account_devices")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_constraint("uq_accounts_name_skeleton", type_="unique")
        batch.drop_column("name_skeleton")
    with op.batch_alter_table("daily_games") as batch:
        batch.drop_constraint("uq_daily_games_name", type_="unique")
        batch.drop_column("name_key")
    op.drop_index("ix_games_dice_commitment", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("assisted")
