"""The accounts' ratings in the database: a rated game's changes written in the transaction of
its results, and read back for the end screen, the player pages and the leaderboards.

The rating maths is `dicepoker.ratings` (openskill's Plackett-Luce, bots as anchors with fixed
ratings, provisional ones in a variant whose anchors are not measured yet, so that a new variant's
games against bots are rated too); this module only reads the current ratings, asks it, and stores
what it says. It also keeps the rule on repeated opponents: a game two of whose accounts already
played `RATED_GAMES_A_DAY_TOGETHER` rated games together this UTC day changes no rating, counted
from the rating changes already written (the games that moved ratings are the ones that count).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from dicepoker.engine import ranking
from dicepoker.master import LiveGame
from dicepoker.master.seats import ABANDONED
from dicepoker.ratings import (
    RATED_GAMES_A_DAY_TOGETHER,
    RatedSeat,
    Rating,
    default_rating,
    pool_of,
    rate_game,
    shown,
)
from dicepoker.server.storage.models import GameResultRow, RatingChangeRow, RatingRow, utcnow
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


#: Why a finished game asked to be rated changed no rating though its seats allowed it.
REPEATED_OPPONENTS = "repeated_opponents"


class RatingBook:
    """Reads and writes the `ratings` and `rating_changes` tables."""

    def __init__(self, store: Store, *, now: Callable[[], datetime] = utcnow) -> None:
        self.store = store
        self.now = now  # when a game is rated: the UTC day its repeated opponents count in

    async def why_unrated(self, live: LiveGame) -> str | None:
        """Why the game is not rated (None: it is, or will be once over): `unrated_why`, else,
        once its results are written, `REPEATED_OPPONENTS` when they came without rating
        changes (both are written in one transaction: results alone mean the rule held it)."""
        reason = unrated_why(live)
        if reason is not None or not live.game.state.finished:
            return reason
        async with self.store.sessions() as session:
            results = await session.scalar(
                select(GameResultRow.game_id).where(GameResultRow.game_id == live.id).limit(1)
            )
            changes = await session.scalar(
                select(RatingChangeRow.id).where(RatingChangeRow.game_id == live.id).limit(1)
            )
        return REPEATED_OPPONENTS if results is not None and changes is None else None

    async def games_together_today(self, session: AsyncSession, first: int, second: int) -> int:
        """The games of the current UTC day that changed the ratings of both accounts."""
        now = self.now().astimezone(UTC)
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        mine = aliased(RatingChangeRow)
        theirs = aliased(RatingChangeRow)
        query = (
            select(func.count())
            .select_from(mine)
            .join(theirs, theirs.game_id == mine.game_id)
            .where(
                mine.account_id == first,
                theirs.account_id == second,
                mine.created_at >= midnight,
            )
        )
        return int(await session.scalar(query) or 0)

    async def rate(self, session: AsyncSession, live: LiveGame) -> list[Change]:
        """Rate a finished game in `session`'s transaction (nothing when it is not rated, or
        when two of its accounts have played enough rated games together today). The
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
        # Counted once the accounts' rows are locked: two games of one pair ending at once
        # are counted one after the other.
        accounts = sorted({row.account_id for row in rows.values()})
        for first, second in itertools.combinations(accounts, 2):
            if await self.games_together_today(session, first, second) >= (
                RATED_GAMES_A_DAY_TOGETHER
            ):
                return []
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
                    created_at=self.now(),
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
