"""The daily challenge's REST bodies (docs/api.md, "Daily challenge")."""

from __future__ import annotations

from pydantic import Field, JsonValue

from dicepoker.protocol.base import Wire
from dicepoker.protocol.messages import Status


class DailyGame(Wire):
    """A game of a day's challenge, with the links to its table, replay and analysis."""

    id: str
    url: str = Field(description="the table (/g/{id})")
    replay: str = Field(description="the replay viewer, with the analysis (/replay/g/{id})")
    analysis: str = Field(description="the analysis as JSON (/api/games/{id}/analysis)")
    name: str
    ranked: bool = Field(description="played under an account (anonymous games are unranked)")
    status: Status
    score: int | None = Field(description="the final score, once the game is over")
    to_par: int | None = Field(description="score - par, once both are known")


class DailyChallenge(Wire):
    """`GET /api/daily/{preset}`: one preset's challenge of one day."""

    preset: str
    options: dict[str, JsonValue] = Field(description="the rules' options (the defaults)")
    date: str = Field(description="the UTC day, YYYY-MM-DD")
    ends_at: str = Field(description="when the day is over (UTC) and the seed is revealed")
    over: bool
    scheme: str
    commitment: str = Field(description="SHA-256 of the day's seed (docs/fair-dice.md)")
    seed: str | None = Field(description="the day's seed: null until the day is over")
    par: int | None = Field(description="the expert's score on the day's dice (null until known)")
    par_level: str
    games: int = Field(description="the games started on this challenge")
    account: str | None = Field(
        description="the logged-in account's name (its games are ranked); null: anonymous"
    )
    mine: DailyGame | None = Field(description="the logged-in account's game of the day")


class DailyStarted(Wire):
    """`POST /api/daily/{preset}` (201): your game of today's challenge and your seat's token."""

    id: str
    url: str
    seat: int
    token: str
    preset: str
    date: str
    ranked: bool


class DailyPlace(DailyGame):
    """A finished game on the leaderboard: its place among the ranked games (null: unranked)."""

    place: int | None


class DailyLeaderboard(Wire):
    """`GET /api/daily/{preset}/leaderboard?limit=100`: the day's finished games, best score
    first (the first `limit` of each list, at most 500)."""

    preset: str
    date: str
    over: bool
    par: int | None
    ranked: list[DailyPlace] = Field(description="games of accounts, ties sharing a place")
    unranked: list[DailyPlace] = Field(description="anonymous players' games, not placed")
    finished: int = Field(description="the day's finished games (the lists show the first ones)")
    playing: int = Field(description="games of the day not finished yet")
