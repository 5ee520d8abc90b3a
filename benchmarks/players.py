"""What a player page and a leaderboard cost the database, as the history grows.

Fills a fresh database (SQLite in a temporary folder, or PostgreSQL with `--postgres URL`) with
`--accounts` accounts, each with `--games` finished games (their seats, results and rating
changes, in the `school-3` pool) and a rating, then times the reads of
`dicepoker.server.community.history` (wall time, the best of `--repeat` runs, in milliseconds):

- `page`: one account's page: its first 20 games, its stats per pool, its ratings with their
  history (what `GET /api/players/{name}` reads);
- `leaderboard`: the pool's best 50 (`GET /api/leaderboard/{pool}`).

    python benchmarks/players.py [--accounts 2000] [--games 50] [--postgres URL] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from dicepoker.server.community.history import History
from dicepoker.server.storage.models import (
    AccountRow,
    GamePlayerRow,
    GameResultRow,
    GameRow,
    RatingChangeRow,
    RatingRow,
)
from dicepoker.server.storage.store import Store, create_database

START = datetime(2026, 1, 1, tzinfo=UTC)
POOL = "school-3"


async def fill(store: Store, accounts: int, games: int, seed: int) -> None:
    """Every account's games, results, rating changes and rating, in a few large inserts."""
    rng = random.Random(seed)
    async with store.engine.begin() as connection:
        await connection.execute(
            insert(AccountRow),
            [
                {
                    "id": n + 1,
                    "name": f"p{n}",
                    "name_key": f"p{n}",
                    "password_hash": "x",
                    "disabled": False,
                    "created_at": START,
                }
                for n in range(accounts)
            ],
        )
        for account in range(1, accounts + 1):
            ids = [f"g{account}-{n}" for n in range(games)]
            times = [START + timedelta(hours=n) for n in range(games)]
            await connection.execute(
                insert(GameRow),
                [
                    {
                        "id": game_id,
                        "variant": "school",
                        "options": {"columns": 3},
                        "seats": [{"kind": "human", "name": f"p{account}", "account": account}],
                        "status": "finished",
                        "seq": 100,
                        "turn_seconds": 0,
                        "created_at": at,
                        "updated_at": at,
                        "rated": True,
                    }
                    for game_id, at in zip(ids, times, strict=True)
                ],
            )
            await connection.execute(
                insert(GamePlayerRow),
                [
                    {"game_id": game_id, "seat": 0, "account_id": account, "created_at": at}
                    for game_id, at in zip(ids, times, strict=True)
                ],
            )
            await connection.execute(
                insert(GameResultRow),
                [
                    {
                        "game_id": game_id,
                        "seat": 0,
                        "account_id": account,
                        "variant": "school",
                        "pool": POOL,
                        "players": 2,
                        "score": rng.randrange(150, 350),
                        "place": rng.choice((1, 2)),
                        "tied": 1,
                        "zeros": rng.randrange(4),
                        "stars": rng.randrange(3),
                        "lost": rng.uniform(5, 40),
                        "decisions": 52,
                        "finished_at": at,
                    }
                    for game_id, at in zip(ids, times, strict=True)
                ],
            )
            await connection.execute(
                insert(RatingChangeRow),
                [
                    {
                        "account_id": account,
                        "game_id": game_id,
                        "pool": POOL,
                        "mu_before": 25.0,
                        "sigma_before": 8.0,
                        "mu_after": rng.uniform(15, 35),
                        "sigma_after": 5.0,
                        "created_at": at,
                    }
                    for game_id, at in zip(ids, times, strict=True)
                ],
            )
        await connection.execute(
            insert(RatingRow),
            [
                {
                    "account_id": account,
                    "pool": POOL,
                    "mu": rng.uniform(15, 35),
                    "sigma": rng.uniform(2, 8),
                    "games": games,
                    "updated_at": START,
                }
                for account in range(1, accounts + 1)
            ],
        )


async def best_of(repeat: int, read: Callable[[], Awaitable[Any]]) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        await read()
        times.append(time.perf_counter() - began)
    return min(times) * 1000


async def measure(url: str, accounts: int, games: int, repeat: int) -> dict[str, float]:
    store = Store(url)
    try:
        await store.migrate()
        await fill(store, accounts, games, seed=1)
        history = History(store)
        middle = accounts // 2

        async def page() -> None:
            await history.games(middle, None, 20)
            await history.totals(middle)
            await history.ratings(middle)

        return {
            "page_ms": await best_of(repeat, page),
            "leaderboard_ms": await best_of(repeat, lambda: history.leaderboard(POOL, 50)),
        }
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=2000)
    parser.add_argument("--games", type=int, default=50, help="finished games per account")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--postgres", help="a PostgreSQL server's URL (a fresh database on it)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.postgres:
            name = f"bench_{uuid.uuid4().hex[:10]}"
            url = asyncio.run(create_database(args.postgres, name))
        else:
            url = str(Path(folder) / "players.db")
        result = asyncio.run(measure(url, args.accounts, args.games, args.repeat))
    result = {"accounts": args.accounts, "games_each": args.games, **result}
    if args.json:
        print(json.dumps(result))
        return
    kind = "PostgreSQL" if args.postgres else "SQLite"
    print(f"{kind}: {args.accounts} accounts x {args.games} finished games")
    print(f"  a player's page (20 games, stats, ratings): {result['page_ms']:.2f} ms")
    print(f"  a leaderboard (the best 50):                {result['leaderboard_ms']:.2f} ms")


if __name__ == "__main__":
    main()
