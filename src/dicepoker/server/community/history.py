"""What the player pages and leaderboards read: an account's games, its results summed per
preset, its ratings and their history, and a pool's best accounts.

Reads only, each one query on the indexed columns (`account_id`, `pool`), the same SQL on
SQLite and PostgreSQL. The rows are written elsewhere: `game_players` when a seat is bound to an
account, `game_results` when a game ends, the ratings when a rated game is rated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import Float, and_, case, cast, func, or_, select

from dicepoker.master import Refusal
from dicepoker.ratings import ESTABLISHED_GAMES
from dicepoker.server.community.pools import ordinal
from dicepoker.server.storage.models import (
    AccountRow,
    GamePlayerRow,
    GameResultRow,
    GameRow,
    RatingChangeRow,
    RatingRow,
)
from dicepoker.server.storage.store import Store

#: The rated games of a pool that a player's rating graph shows (the most recent).
HISTORY_POINTS: Final = 250


def _utc(moment: datetime) -> datetime:
    """A stored time with its UTC offset (SQLite hands datetimes back without one)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class PlayedGame:
    """One seat of an account in a game, with the game and (once finished) the result."""

    game_id: str
    seat: int
    joined_at: datetime
    variant: str
    options: dict[str, Any]
    seats: list[dict[str, Any]]
    status: str
    rated: bool
    score: int | None
    place: int | None
    finished_at: datetime | None


@dataclass(frozen=True)
class PoolTotals:
    """An account's finished games of one pool, summed (the means are made from these)."""

    pool: str
    variant: str
    games: int
    score_sum: int
    best_score: int
    zeros: int
    stars: int
    analysed: int  # games whose analysis is known (lost and decisions set)
    lost: float  # expected points lost over the analysed games
    decisions: int  # decisions of the analysed games
    wins: float  # first places, a first shared by k seats counting 1/k


@dataclass(frozen=True)
class RatingNow:
    pool: str
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class RatingStep:
    """A rated game of one pool: the rating after it."""

    pool: str
    at: datetime
    mu: float
    sigma: float
    game_id: str


@dataclass(frozen=True)
class Ranked:
    name: str
    mu: float
    sigma: float
    games: int


class History:
    """The reads of one store (cheap to make: it holds nothing else)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def games(
        self, account_id: int, before: str | None, limit: int
    ) -> tuple[list[PlayedGame], bool]:
        """The account's games, newest seat first: at most `limit` of them after the game
        `before` (a game id of this account's list; `bad_request` for another), and whether
        more follow."""
        query = (
            select(GamePlayerRow, GameRow, GameResultRow)
            .join(GameRow, GameRow.id == GamePlayerRow.game_id)
            .outerjoin(
                GameResultRow,
                and_(
                    GameResultRow.game_id == GamePlayerRow.game_id,
                    GameResultRow.seat == GamePlayerRow.seat,
                ),
            )
            .where(GamePlayerRow.account_id == account_id)
            .order_by(GamePlayerRow.created_at.desc(), GamePlayerRow.game_id.desc())
            .limit(limit + 1)
        )
        async with self.store.sessions() as session:
            if before is not None:
                mark = await session.scalar(
                    select(GamePlayerRow.created_at)
                    .where(GamePlayerRow.account_id == account_id, GamePlayerRow.game_id == before)
                    .limit(1)
                )
                if mark is None:
                    raise Refusal("bad_request", "before: not a game of this player")
                query = query.where(
                    or_(
                        GamePlayerRow.created_at < mark,
                        and_(GamePlayerRow.created_at == mark, GamePlayerRow.game_id < before),
                    )
                )
            rows = (await session.execute(query)).all()
        played = [_played(link, game, result) for link, game, result in rows[:limit]]
        return played, len(rows) > limit

    async def totals(self, account_id: int) -> list[PoolTotals]:
        """The account's finished games summed per pool, in pool order."""
        known = and_(GameResultRow.lost.is_not(None), GameResultRow.decisions.is_not(None))
        won = and_(GameResultRow.place == 1, GameResultRow.tied > 0)
        query = (
            select(
                GameResultRow.pool,
                func.min(GameResultRow.variant).label("variant"),
                func.count().label("games"),
                func.sum(GameResultRow.score).label("score_sum"),
                func.max(GameResultRow.score).label("best_score"),
                func.sum(GameResultRow.zeros).label("zeros"),
                func.sum(GameResultRow.stars).label("stars"),
                func.sum(case((known, 1), else_=0)).label("analysed"),
                func.sum(case((known, GameResultRow.lost), else_=0.0)).label("lost"),
                func.sum(case((known, GameResultRow.decisions), else_=0)).label("decisions"),
                func.sum(case((won, 1.0 / cast(GameResultRow.tied, Float)), else_=0.0)).label(
                    "wins"
                ),
            )
            .where(GameResultRow.account_id == account_id)
            .group_by(GameResultRow.pool)
            .order_by(GameResultRow.pool)
        )
        async with self.store.sessions() as session:
            rows = (await session.execute(query)).all()
        return [
            PoolTotals(
                pool=row.pool,
                variant=row.variant,
                games=int(row.games),
                score_sum=int(row.score_sum or 0),
                best_score=int(row.best_score or 0),
                zeros=int(row.zeros or 0),
                stars=int(row.stars or 0),
                analysed=int(row.analysed or 0),
                lost=float(row.lost or 0.0),
                decisions=int(row.decisions or 0),
                wins=float(row.wins or 0.0),
            )
            for row in rows
        ]

    async def ratings(
        self, account_id: int, points: int = HISTORY_POINTS
    ) -> tuple[list[RatingNow], list[RatingStep]]:
        """The account's ratings (pools with a rated game) and, per pool, the ratings after
        its last `points` rated games, oldest first."""
        numbered = (
            select(
                RatingChangeRow.pool,
                RatingChangeRow.created_at,
                RatingChangeRow.mu_after,
                RatingChangeRow.sigma_after,
                RatingChangeRow.game_id,
                RatingChangeRow.id,
                func.row_number()
                .over(
                    partition_by=RatingChangeRow.pool,
                    order_by=(RatingChangeRow.created_at.desc(), RatingChangeRow.id.desc()),
                )
                .label("back"),
            )
            .where(RatingChangeRow.account_id == account_id)
            .subquery()
        )
        steps_query = (
            select(
                numbered.c.pool,
                numbered.c.created_at,
                numbered.c.mu_after,
                numbered.c.sigma_after,
                numbered.c.game_id,
            )
            .where(numbered.c.back <= points)
            .order_by(numbered.c.pool, numbered.c.created_at, numbered.c.id)
        )
        async with self.store.sessions() as session:
            now = await session.scalars(
                select(RatingRow)
                .where(RatingRow.account_id == account_id, RatingRow.games > 0)
                .order_by(RatingRow.pool)
            )
            ratings = [RatingNow(r.pool, r.mu, r.sigma, r.games) for r in now]
            rows = (await session.execute(steps_query)).all()
        steps = [
            RatingStep(pool, _utc(at), float(mu), float(sigma), game_id)
            for pool, at, mu, sigma, game_id in rows
        ]
        return ratings, steps

    async def leaderboard(self, pool: str, limit: int) -> list[Ranked]:
        """The pool's accounts with at least one rated game: established ratings first, then
        provisional ones (`dicepoker.ratings.ESTABLISHED_GAMES`: a new account's few games say
        little), each best shown rating first (ties: more games first, then by name); disabled
        accounts are left out. The order is the query's, so `limit` cuts the right rows."""
        query = (
            select(AccountRow.name, RatingRow.mu, RatingRow.sigma, RatingRow.games)
            .join(AccountRow, AccountRow.id == RatingRow.account_id)
            .where(RatingRow.pool == pool, RatingRow.games > 0, AccountRow.disabled.is_(False))
            .order_by(
                (RatingRow.games >= ESTABLISHED_GAMES).desc(),
                ordinal(RatingRow.mu, RatingRow.sigma).desc(),
                RatingRow.games.desc(),
                AccountRow.name_key,
            )
            .limit(limit)
        )
        async with self.store.sessions() as session:
            rows = (await session.execute(query)).all()
        return [
            Ranked(name, float(mu), float(sigma), int(games)) for name, mu, sigma, games in rows
        ]


def _played(link: GamePlayerRow, game: GameRow, result: GameResultRow | None) -> PlayedGame:
    return PlayedGame(
        game_id=game.id,
        seat=link.seat,
        joined_at=_utc(link.created_at),
        variant=game.variant,
        options=dict(game.options),
        seats=[dict(seat) for seat in game.seats],
        status=game.status,
        rated=bool(game.rated),
        score=None if result is None else result.score,
        place=None if result is None else result.place,
        finished_at=_finished_at(game, result),
    )


def _finished_at(game: GameRow, result: GameResultRow | None) -> datetime | None:
    if result is not None:
        return _utc(result.finished_at)
    return _utc(game.updated_at) if game.status == "finished" else None


def names(seats: Sequence[dict[str, Any]]) -> list[str | None]:
    """The names of a game's seats in order (null: an open seat)."""
    return [seat.get("name") for seat in seats]
