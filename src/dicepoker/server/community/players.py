"""A player's page and a pool's leaderboard as answers of the API (`dicepoker.protocol.players`),
made from the history's reads; the JSON routes and the HTML pages both show these.
"""

from __future__ import annotations

from typing import Final

from dicepoker.master import Refusal
from dicepoker.master.seats import LIVE_STATUSES
from dicepoker.protocol.players import (
    GameLinks,
    Leaderboard,
    LeaderboardEntry,
    Player,
    PlayerGame,
    PoolRating,
    PresetStats,
    RatingPoint,
)
from dicepoker.ratings import provisional_rating
from dicepoker.rules import RulesError
from dicepoker.server.community.accounts import Accounts
from dicepoker.server.community.history import (
    History,
    PlayedGame,
    PoolTotals,
    RatingNow,
    RatingStep,
    names,
)
from dicepoker.server.community.pools import Pool, pool_of, rating_pools, shown_rating

GAMES_DEFAULT: Final = 20
GAMES_MAX: Final = 100
LEADERBOARD_DEFAULT: Final = 50
LEADERBOARD_MAX: Final = 200


def find_pool(pool_id: str) -> Pool:
    """The pool of this id, or 404 `not_found`."""
    pool = rating_pools().get(pool_id)
    if pool is None:
        raise Refusal("not_found", "no such rating pool")
    return pool


def _pool_or_none(variant: str, options: dict[str, object]) -> str | None:
    try:
        return pool_of(variant, options)
    except (RulesError, KeyError):
        return None


def _links(game: PlayedGame) -> GameLinks:
    table = f"/g/{game.game_id}"
    if game.status in LIVE_STATUSES:  # a finished or abandoned game has its replay
        return GameLinks.build(table=table)
    replay = f"/replay/g/{game.game_id}"
    return GameLinks.build(
        table=table,
        replay=replay,
        analysis=f"{replay}#analysis",
        analysis_api=f"/api/games/{game.game_id}/analysis",
    )


def _game(game: PlayedGame) -> PlayerGame:
    return PlayerGame.build(
        id=game.game_id,
        variant=game.variant,
        options=game.options,
        pool=_pool_or_none(game.variant, game.options),
        status=game.status,
        rated=game.rated,
        seat=game.seat,
        players=names(game.seats),
        created_at=game.joined_at.isoformat(),
        finished_at=None if game.finished_at is None else game.finished_at.isoformat(),
        score=game.score,
        place=game.place,
        links=_links(game),
    )


def _stats(totals: PoolTotals) -> PresetStats:
    pool = rating_pools().get(totals.pool)
    games = totals.games
    return PresetStats.build(
        pool=totals.pool,
        variant=totals.variant,
        columns=None if pool is None else pool.columns,
        games=games,
        mean_score=totals.score_sum / games,
        best_score=totals.best_score,
        zeros_per_game=totals.zeros / games,
        stars_per_game=totals.stars / games,
        analysed=totals.analysed,
        accuracy=totals.lost / totals.decisions if totals.decisions else None,
        win_rate=totals.wins / games,
    )


def _ratings(now: list[RatingNow], steps: list[RatingStep]) -> list[PoolRating]:
    known = rating_pools()
    ratings = []
    for rating in now:
        pool = known.get(rating.pool)
        history = [
            RatingPoint.build(
                at=step.at.isoformat(),
                rating=shown_rating(step.mu, step.sigma),
                game_id=step.game_id,
            )
            for step in steps
            if step.pool == rating.pool
        ]
        ratings.append(
            PoolRating.build(
                pool=rating.pool,
                variant=pool.variant if pool else rating.pool,
                columns=None if pool is None else pool.columns,
                rating=shown_rating(rating.mu, rating.sigma),
                games=rating.games,
                provisional=provisional_rating(rating.games),
                history=history,
            )
        )
    return ratings


async def player_answer(
    accounts: Accounts, name: str, before: str | None = None, limit: int = GAMES_DEFAULT
) -> Player:
    """The page of the account `name` (any case): 404 `not_found` for an unknown, deleted or
    disabled one."""
    account = await accounts.by_name(name)
    if account is None or account.disabled:
        raise Refusal("not_found", "no such player")
    history = History(accounts.store)
    games, more = await history.games(account.id, before, limit)
    totals = await history.totals(account.id)
    now, steps = await history.ratings(account.id)
    return Player.build(
        name=account.name,
        created_at=account.created_at.isoformat(),
        ratings=_ratings(now, steps),
        stats=[_stats(pool) for pool in totals],
        games=[_game(game) for game in games],
        next_before=games[-1].game_id if more and games else None,
    )


async def leaderboard_answer(
    accounts: Accounts, pool_id: str, limit: int = LEADERBOARD_DEFAULT
) -> Leaderboard:
    """The best `limit` accounts of the pool (404 `not_found` for an unknown pool); equal
    shown ratings share a rank, and a provisional rating ranks after every established one
    (a few games, lucky or arranged, do not put a new account above the players who made
    their rating over many)."""
    pool = find_pool(pool_id)
    ranked = await History(accounts.store).leaderboard(pool.id, limit)
    # Stable: each part keeps the history's order (by rating).
    ranked.sort(key=lambda row: provisional_rating(row.games))
    entries: list[LeaderboardEntry] = []
    for index, row in enumerate(ranked):
        rating = shown_rating(row.mu, row.sigma)
        provisional = provisional_rating(row.games)
        rank = index + 1
        if entries and (entries[-1].rating, entries[-1].provisional) == (rating, provisional):
            rank = entries[-1].rank
        entries.append(
            LeaderboardEntry.build(
                rank=rank,
                name=row.name,
                rating=rating,
                games=row.games,
                provisional=provisional,
            )
        )
    return Leaderboard.build(
        pool=pool.id, variant=pool.variant, columns=pool.columns, entries=entries
    )
