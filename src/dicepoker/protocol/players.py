"""The player pages and leaderboards' answers (docs/api.md, "Players and leaderboards").

Ratings are shown as one number (openskill's mean and uncertainty made into a rating that a
new player does not overrate), marked `provisional` until the account has played enough rated
games in the pool (`dicepoker.ratings.ESTABLISHED_GAMES`; pages show "1874?"); times are ISO 8601
with their UTC offset.
"""

from __future__ import annotations

from pydantic import Field, JsonValue

from dicepoker.protocol.base import Absent, Wire, absent
from dicepoker.protocol.messages import Status


class RatingPoint(Wire):
    """The rating after one rated game: a point of the rating graph."""

    at: str = Field(description="when the game was rated")
    rating: int
    game_id: str


class PoolRating(Wire):
    """An account's rating in one pool, with its history (oldest first)."""

    pool: str
    variant: str
    columns: int | None = Field(description="the sheet's columns where the pool is per count")
    rating: int
    games: int = Field(description="rated games in the pool")
    provisional: bool = Field(
        description="too few rated games in the pool for the rating to say much (shown 1874?)"
    )
    history: list[RatingPoint] = Field(description="the last rated games, oldest first")


class PresetStats(Wire):
    """What an account's finished games of one preset (pool) add up to."""

    pool: str
    variant: str
    columns: int | None
    games: int
    mean_score: float
    best_score: int
    zeros_per_game: float
    stars_per_game: float
    analysed: int = Field(description="games whose analysis is known")
    accuracy: float | None = Field(
        description="mean expected points lost per decision over the analysed games (lower is"
        " better); null when none is analysed"
    )
    win_rate: float = Field(
        description="share of first places, 0 to 1 (a shared first counts as its share)"
    )


class GameLinks(Wire):
    """Where a game is seen: its table while it runs; its replay and analysis once finished."""

    table: str
    replay: str | Absent = absent("the replay viewer (finished games)")
    analysis: str | Absent = absent("the replay viewer at the game's analysis (finished games)")
    analysis_api: str | Absent = absent("GET …/analysis (finished games)")


class PlayerGame(Wire):
    """One game of an account, running or finished."""

    id: str
    variant: str
    options: dict[str, JsonValue]
    pool: str | None = Field(description="its rating pool (null: options of no known pool)")
    status: Status
    rated: bool
    seat: int = Field(description="the account's seat")
    players: list[str | None] = Field(description="names in seat order; null: an open seat")
    created_at: str = Field(description="when the account took its seat")
    finished_at: str | None
    score: int | None = Field(description="the account's final score (finished games)")
    place: int | None = Field(description="1 = first; shared places share the number")
    links: GameLinks


class Player(Wire):
    """`GET /api/players/{name}`: a player's page."""

    name: str
    created_at: str = Field(description="member since")
    ratings: list[PoolRating]
    stats: list[PresetStats]
    games: list[PlayerGame] = Field(description="newest first")
    next_before: str | None = Field(
        description="more games: ask again with `?before=` this game id (null: none left)"
    )


class LeaderboardEntry(Wire):
    rank: int = Field(
        description="1 = best; equal ratings share the rank; provisional ratings rank after"
        " every established one"
    )
    name: str
    rating: int
    games: int
    provisional: bool = Field(description="too few rated games for the rating to say much")


class Leaderboard(Wire):
    """`GET /api/leaderboard/{pool}`: accounts by shown rating, best first, the established
    ratings before the provisional ones."""

    pool: str
    variant: str
    columns: int | None
    entries: list[LeaderboardEntry]
