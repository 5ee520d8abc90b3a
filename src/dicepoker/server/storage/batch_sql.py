"""The statements of the group commit (`store.Store.append`): a batch of games' events in one
transaction, each game moving on only if it is still at the seq its writer read."""

from __future__ import annotations

import functools

from sqlalchemy import TextClause, bindparam, text

from dicepoker.server.storage.models import GameRow

#: The most games in one SQLite batch of the group commit: its statement is a compound SELECT of
#: one term a game, and SQLite refuses one of more than 500 terms ("too many terms in compound
#: SELECT"), which failed every move of a batch once over 500 games moved at once (found with
#: benchmarks/memory.py at 1,200 games). PostgreSQL's batch is arrays: no such limit.
SQLITE_BATCH = 256


def statement_size(count: int) -> int:
    """The rows of the statement that commits `count` games on SQLite: the power of two at or
    above it (the rows past `count` are NULL and match no game). Every size of statement is
    compiled and kept by SQLAlchemy (its compiled cache, 500 statements), each as big as its
    rows: one per batch size up to SQLITE_BATCH held 50-100 MiB in a server under load
    (benchmarks/memory.py --trace); a power of two keeps 9 of them."""
    size = 1
    while size < count:
        size *= 2
    return size


@functools.lru_cache(maxsize=16)
def advance_games(count: int) -> TextClause:
    """`UPDATE games ... FROM (the batch) ... RETURNING id` for `count` games (SQLite 3.33+ and
    PostgreSQL alike): each game's seq moves from `old` to `new` only if it is still `old`; a
    row whose id is NULL moves nothing."""
    rows = " UNION ALL ".join(
        f"SELECT CAST(:id{n} AS VARCHAR(32)) AS id, CAST(:old{n} AS INTEGER) AS old, "
        f"CAST(:new{n} AS INTEGER) AS new, CAST(:status{n} AS VARCHAR(16)) AS status, "
        f"CAST(:person{n} AS INTEGER) AS person"
        for n in range(count)
    )
    return text(
        f"UPDATE games SET seq = batch.new, status = batch.status, updated_at = :now, "
        f"human_at = CASE WHEN batch.person = 1 THEN :now ELSE games.human_at END "
        f"FROM ({rows}) AS batch WHERE games.id = batch.id AND games.seq = batch.old "
        f"AND games.status <> 'abandoned' RETURNING games.id"
    ).bindparams(bindparam("now", type_=GameRow.__table__.c.updated_at.type))


# PostgreSQL: a whole batch in one statement and one round trip (no BEGIN and COMMIT around it;
# one statement is one transaction). The games still at their writer's seq move on and are named;
# their events are inserted in the same statement. The same text for every batch size, so the
# server prepares it once per connection, and PostgreSQL plans it once there (the writer's
# connections ask for its generic plan: `Store.commit_engine`).
PG_BATCH = """
WITH batch AS (
    SELECT * FROM unnest($1::varchar[], $2::int[], $3::int[], $4::varchar[], $5::int[],
                         $6::varchar[], $7::text[], $8::bool[], $10::bool[])
        AS b(id, old, new, status, seat, action, thrown, auto, person)
), moved AS (
    UPDATE games SET seq = batch.new, status = batch.status, updated_at = $9,
                     human_at = CASE WHEN batch.person THEN $9 ELSE games.human_at END
    FROM batch WHERE games.id = batch.id AND games.seq = batch.old
                     AND games.status <> 'abandoned'
    RETURNING games.id
), added AS (
    INSERT INTO events (game_id, seq, seat, action, thrown, auto, created_at)
    SELECT batch.id, batch.new, batch.seat, batch.action, CAST(batch.thrown AS JSON),
           batch.auto, $9
    FROM batch JOIN moved ON moved.id = batch.id
)
SELECT id FROM moved
"""


__all__ = ["PG_BATCH", "SQLITE_BATCH", "advance_games", "statement_size"]
