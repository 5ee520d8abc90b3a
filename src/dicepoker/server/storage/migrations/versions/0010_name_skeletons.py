"""The accounts made before names had skeletons get theirs (`accounts.name_skeleton`, migration
0009; `dicepoker.names.name_skeleton` says what a skeleton is), so that a new look-alike of an
old name is taken.

The oldest account keeps a skeleton: accounts are filled in the order they were made, and an
account whose skeleton an earlier one already holds (a look-alike made before the rule, or
a skeleton too long to store) keeps a null one rather than failing the migration. Such an
account keeps its name and logs in as before; a seat or a new account cannot take its name,
since seat names are compared with its `name_key` too (`Accounts.check_seat_name`).

The skeleton is computed by the same function the server uses, not a copy frozen here: the
column means "the skeleton the running server compares with", and a migration that wrote
another would make the unique constraint lie.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from dicepoker.names import MAX_SKELETON, name_skeleton

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

BATCH = 500


def upgrade() -> None:
    bind = op.get_bind()
    taken = {
        row[0]
        for row in bind.execute(
            sa.text("SELECT name_skeleton FROM accounts WHERE name_skeleton IS NOT NULL")
        )
    }
    after = 0
    while True:
        rows = bind.execute(
            sa.text(
                "SELECT id, name FROM accounts WHERE id > :after AND name_skeleton IS NULL "
                "ORDER BY id LIMIT :batch"
            ),
            {"after": after, "batch": BATCH},
        ).all()
        if not rows:
            break
        for account_id, name in rows:
            skeleton = name_skeleton(name)
            if skeleton in taken or len(skeleton) > MAX_SKELETON:
                continue
            taken.add(skeleton)
            bind.execute(
                sa.text("UPDATE accounts SET name_skeleton = :skeleton WHERE id = :id"),
                {"skeleton": skeleton, "id": account_id},
            )
        after = rows[-1][0]


def downgrade() -> None:
    op.execute("UPDATE accounts SET name_skeleton = NULL")
