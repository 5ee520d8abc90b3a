"""The daily challenge (docs/api.md, "Daily challenge"): today's challenge per preset, your game of
it, and the day's leaderboard against the expert's par.

The day's seed stays on the server until the day is over (UTC): these answers carry only its
commitment until then, and every game of the day withholds it too
(dicepoker.server.community.daily).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from dicepoker.daily import PAR_LEVEL, day_end
from dicepoker.fair import SCHEME
from dicepoker.master import Refusal
from dicepoker.protocol import (
    DailyChallenge,
    DailyGame,
    DailyLeaderboard,
    DailyPlace,
    DailyStarted,
    error_responses,
)
from dicepoker.server.community.accounts import Account, name_key, optional_account
from dicepoker.server.community.daily import Player, preset_rules
from dicepoker.server.services import CREATING, Services, services
from dicepoker.server.storage.daily_store import DailyEntry

router = APIRouter(prefix="/api/daily", tags=["daily"])

App = Annotated[Services, Depends(services)]
Who = Annotated[Account | None, Depends(optional_account)]
#: The most games of each list a leaderboard answers.
MAX_BOARD = 500


def game_of(entry: DailyEntry, par: int | None, place: int | None = None) -> DailyPlace:
    game_id = entry.game_id
    to_par = entry.score - par if entry.score is not None and par is not None else None
    return DailyPlace.build(
        id=game_id,
        url=f"/g/{game_id}",
        replay=f"/replay/g/{game_id}",
        analysis=f"/api/games/{game_id}/analysis",
        name=entry.name,
        ranked=entry.account_id is not None,
        status=entry.status,
        score=entry.score,
        to_par=to_par,
        place=place,
    )


def _mine(entry: DailyEntry | None, par: int | None) -> DailyGame | None:
    if entry is None:
        return None
    place = game_of(entry, par)
    return DailyGame.build(**{name: getattr(place, name) for name in DailyGame.model_fields})


@router.get("/{preset}", response_model=DailyChallenge, responses=error_responses(400, 404))
async def get_daily(preset: str, app: App, account: Who, date: str | None = None) -> DailyChallenge:
    """One preset's challenge of a day (`date`, YYYY-MM-DD; today, UTC, when not given), with
    the logged-in account's game of it."""
    daily = app.daily
    daily.check_preset(preset)
    day = await daily.challenge(preset, daily.parse_date(date))
    over = daily.is_over(day.day)
    rules = preset_rules(preset)
    return DailyChallenge.build(
        preset=preset,
        options=dict(rules.option_dict),
        date=day.day.isoformat(),
        ends_at=day_end(day.day).isoformat(),
        over=over,
        scheme=SCHEME,
        commitment=day.commitment,
        seed=day.seed if over else None,
        par=day.par,
        par_level=PAR_LEVEL,
        games=await daily.count(day),
        account=account.name if account else None,
        mine=_mine(await daily.mine(day, account.id if account else None), day.par),
    )


@router.post(
    "/{preset}",
    status_code=201,
    dependencies=CREATING,
    response_model=DailyStarted,
    responses=error_responses(401, 403, 404, 409, 413, 429),
)
async def start_daily(preset: str, app: App, account: Who) -> DailyStarted:
    """Start your game of today's challenge: a logged-in account plays it once a day, ranked,
    under its name; 401 `log_in_for_daily` for anyone else (today's dice are dealt only to
    ranked games: docs/fair-play.md)."""
    app.daily.check_preset(preset)
    if account is None:
        raise Refusal("log_in_for_daily", "log in to play today's daily challenge (once a day)")
    player = Player(account.name, account.id, name_key(account.name))
    live, token, day = await app.daily.start(preset, player)
    return DailyStarted.build(
        id=live.id,
        url=f"/g/{live.id}",
        seat=0,
        token=token,
        preset=preset,
        date=day.day.isoformat(),
        ranked=True,
    )


@router.get(
    "/{preset}/leaderboard",
    response_model=DailyLeaderboard,
    responses=error_responses(400, 404),
)
async def daily_leaderboard(
    preset: str, app: App, date: str | None = None, limit: int = 100
) -> DailyLeaderboard:
    """The day's finished games, best first: accounts ranked, anonymous games listed unranked
    (the first `limit` of each, 1 to 500)."""
    daily = app.daily
    daily.check_preset(preset)
    day = await daily.challenge(preset, daily.parse_date(date))
    board = await daily.board(day)
    limit = max(1, min(limit, MAX_BOARD))
    return DailyLeaderboard.build(
        preset=preset,
        date=day.day.isoformat(),
        over=daily.is_over(day.day),
        par=day.par,
        ranked=[game_of(entry, day.par, place) for place, entry in board.ranked[:limit]],
        unranked=[game_of(entry, day.par) for entry in board.unranked[:limit]],
        finished=len(board.ranked) + len(board.unranked),
        playing=board.playing,
    )
