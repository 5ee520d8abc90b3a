"""Player pages and leaderboards over the API (docs/api.md, "Players and leaderboards"). Every
answer is a model of `dicepoker.protocol.players`; anyone may read them, logged in or not."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from dicepoker.protocol import Leaderboard, Player, error_responses
from dicepoker.server.community.players import (
    GAMES_DEFAULT,
    GAMES_MAX,
    LEADERBOARD_DEFAULT,
    LEADERBOARD_MAX,
    leaderboard_answer,
    player_answer,
)
from dicepoker.server.services import Services, services

router = APIRouter(prefix="/api", tags=["players"])

App = Annotated[Services, Depends(services)]


@router.get("/players/{name}", response_model=Player, responses=error_responses(400, 404))
async def player(
    app: App,
    name: Annotated[str, Path(max_length=100)],
    before: Annotated[str | None, Query(max_length=64, description="a game id")] = None,
    limit: Annotated[int, Query(ge=1, le=GAMES_MAX)] = GAMES_DEFAULT,
) -> Player:
    """A player's page: ratings per pool with their history, stats per preset, and games
    (newest first, `limit` at a time after the game `before`). The name is read in any case."""
    return await player_answer(app.accounts, name, before, limit)


@router.get("/leaderboard/{pool}", response_model=Leaderboard, responses=error_responses(400, 404))
async def leaderboard(
    app: App,
    pool: Annotated[str, Path(max_length=40)],
    limit: Annotated[int, Query(ge=1, le=LEADERBOARD_MAX)] = LEADERBOARD_DEFAULT,
) -> Leaderboard:
    """The pool's accounts with a rated game, by shown rating (best first)."""
    return await leaderboard_answer(app.accounts, pool, limit)
