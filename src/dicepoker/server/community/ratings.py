"""The accounts' ratings in the database: a rated game's changes written in the transaction of
its results, and read back for the end screen, the player pages and the leaderboards.

The rating maths is `dicepoker.ratings` (openskill's Plackett-Luce, bots as anchors with fixed
ratings, provisional ones in a variant whose anchors are not measured yet, so that a new variant's
games against bots are rated too); this module only reads the current ratings, asks it, and stores
what it says.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dicepoker.engine import ranking
from dicepoker.master import LiveGame
from dicepoker.master.seats import ABANDONED
from dicepoker.ratings import RatedSeat, Rating, default_rating, pool_of, rate_game, shown
from dicepoker.server.storage.models import RatingChangeRow, RatingRow, utcnow
from dicepoker.server.storage.store import Store


@dataclass(frozen=True)
class Change:
    """What one rated game did to one account's shown rating."""

    seat: int
    account_id: int
    pool: str
    before: int
    after: int

    @property
    def delta(self) -> int:
        return self.after - self.before


def unrated_why(live: LiveGame) -> str | None:
    """Why a finished game is not rated (None: it is): not asked, or a person without an
    account at one of its seats; an abandoned game is never rated (it has no result)."""
    if live.status == ABANDONED:
        return "abandoned"
    if not live.rated:
        return "not_asked"
    if len(live.seats) < 2:
        return "solitaire"
    for seat in live.seats:
        if seat["kind"] == "human" and seat.get("account") is None:
            return "anonymous_seat"
    return None


class RatingBook:
    """Reads and writes the `ratings` and `rating_changes` tables."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def rate(self, session: AsyncSession, live: LiveGame) -> list[Change]:
        """Rate a finished game in `session`'s transaction (nothing when it is not rated). The
        caller's transaction makes the results and the ratings one write: a second writer of
        the same game fails on the unique (game, account) pair and changes nothing."""
        if unrated_why(live) is not None:
            return []
        pool = pool_of(live.rules)
        places = {standing.seat: standing.place for standing in ranking(live.game.state)}
        rows: dict[int, RatingRow] = {}
        seats: list[RatedSeat] = []
        for number, seat in enumerate(live.seats):
            if seat["kind"] == "bot":
                seats.append(RatedSeat(place=places[number], level=str(seat["level"])))
                continue
            account = int(seat["account"])
            row = await session.get(
                RatingRow, (account, pool), with_for_update=not self.store.is_sqlite
            )
            if row is None:
                start = default_rating()
                row = RatingRow(
                    account_id=account, pool=pool, mu=start.mu, sigma=start.sigma, games=0
                )
                session.add(row)
            rows[number] = row
            seats.append(RatedSeat(place=places[number], rating=Rating(row.mu, row.sigma)))
        after = rate_game(pool, seats)
        changes = []
        for number, row in rows.items():
            new = after[number]
            session.add(
                RatingChangeRow(
                    account_id=row.account_id,
                    game_id=live.id,
                    pool=pool,
                    mu_before=row.mu,
                    sigma_before=row.sigma,
                    mu_after=new.mu,
                    sigma_after=new.sigma,
                )
            )
            changes.append(
                Change(
                    number,
                    row.account_id,
                    pool,
                    shown(Rating(row.mu, row.sigma)),
                    shown(new),
                )
            )
            row.mu, row.sigma = new.mu, new.sigma
            row.games += 1
            row.updated_at = utcnow()
        return changes

    async def changes(self, game_id: str) -> list[RatingChangeRow]:
        async with self.store.sessions() as session:
            rows = await session.scalars(
                select(RatingChangeRow).where(RatingChangeRow.game_id == game_id)
            )
            return list(rows)
