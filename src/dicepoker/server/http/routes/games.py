"""The games: created, joined, looked at, and what can be asked about them (docs/api.md).

Every route answers its model of `dicepoker.protocol` (`response_model`) and documents the errors
it really answers, in the API's error shape.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from dicepoker.fair import verify_record
from dicepoker.master import LiveGame, Refusal
from dicepoker.master.seats import accounts_of, unrated_reason
from dicepoker.protocol import (
    Analysis,
    CreatedSeat,
    CreateGame,
    DiceCheck,
    GameAdvice,
    GameCreated,
    GameInfo,
    GameList,
    GameListEntry,
    GameRatings,
    JoinGame,
    Position,
    RatingChange,
    Record,
    RematchCreated,
    SeatTaken,
    error_responses,
)
from dicepoker.ratings import Rating, shown
from dicepoker.server.community.accounts import DELETED_NAME, Account, optional_account
from dicepoker.server.community.analysis import position, with_links
from dicepoker.server.community.strength import joining_strength, judged_requests
from dicepoker.server.services import ANALYSING, CREATING, Services, live_game, services

router = APIRouter(prefix="/api/games", tags=["games"])

Live = Annotated[LiveGame, Depends(live_game)]
MaybeAccount = Annotated[Account | None, Depends(optional_account)]
App = Annotated[Services, Depends(services)]
ListStatus = Literal["open", "running", "finished", "abandoned"]
# A seat's token over HTTP: `Authorization: Bearer <token>` (as the WebSocket takes it in its
# subprotocol header: never in the URL, which proxies log).
Bearer = Annotated[
    HTTPAuthorizationCredentials | None,
    Depends(HTTPBearer(auto_error=False, description="the seat's token")),
]


async def readable_game(live: Live, app: App, request: Request, bearer: Bearer) -> LiveGame:
    """The game, for whoever may read it now: anyone, but a daily challenge's game only its own
    player (their seat's token, or the session of its account) until its day is over: 403
    `daily_private` (docs/fair-play.md)."""
    if not live.private_now():
        return live
    if bearer is not None and app.master.seat_of(live, bearer.credentials) is not None:
        return live
    account = await optional_account(request)
    if account is not None and account.id in accounts_of(live.seats).values():
        return live
    raise Refusal(
        "daily_private", "another player's daily challenge game can be seen when its day is over"
    )


Readable = Annotated[LiveGame, Depends(readable_game)]


@router.post(
    "",
    status_code=201,
    dependencies=CREATING,
    response_model=GameCreated,
    responses=error_responses(400, 401, 409, 413, 422, 429),
)
async def create_game(body: CreateGame, app: App, account: MaybeAccount) -> GameCreated:
    """A new game. A seat asked with `"account": true` is the logged-in player's own, under
    their account (401 `not_logged_in` when nobody is)."""
    seats = [_seat_request(seat.model_dump(), account) for seat in body.seats]
    if sum("account" in seat for seat in seats) > 1:
        raise Refusal("bad_seats", "one seat a game can be your account's")
    for seat in seats:
        # A person's name that no account's looks like (docs/api.md, "Names").
        if seat["kind"] == "human" and seat.get("name") and "account" not in seat:
            seat["name"] = await app.accounts.check_seat_name(seat["name"], account)
    # How the chances will judge each person: from their rating in the game's pool.
    seats = await judged_requests(app.store, body.variant, body.options, seats)
    live, tokens = await app.master.create(
        body.variant,
        body.options,
        seats,
        body.turn_seconds,
        rated=body.rated,
        assisted=body.assisted,
    )
    created = [
        CreatedSeat.build(**dict(seat), token=token)
        for seat, token in zip(live.public_seats(), tokens, strict=True)
    ]
    reason = unrated_reason(live.seats, live.rated)
    extra = {} if reason is None else {"unrated_reason": reason}
    return GameCreated.build(
        id=live.id, url=f"/g/{live.id}", seats=created, rated=reason is None, **extra
    )


def _seat_request(seat: dict[str, Any], account: Account | None) -> dict[str, Any]:
    if not seat.pop("account", False):
        return seat
    if account is None:
        raise Refusal("not_logged_in", "log in to play under your account")
    if seat["kind"] != "human":
        raise Refusal("bad_seats", "an account's seat is a person's")
    return {**seat, "name": account.name, "account": account.id}


@router.post(
    "/{game_id}/join",
    dependencies=CREATING,
    response_model=SeatTaken,
    responses=error_responses(400, 404, 409, 413, 429),
)
async def join_game(body: JoinGame, live: Live, app: App, account: MaybeAccount) -> SeatTaken:
    """Take an open seat: a logged-in player takes it under their account (and its name)."""
    if account is not None:
        strength = await joining_strength(app.store, live, account.id)
        seat, token = await app.master.join(
            live, body.seat, account.name, account=account.id, strength=strength
        )
    elif body.name is None:
        raise Refusal("bad_request", "name: a name is needed to take a seat")
    else:
        name = await app.accounts.check_seat_name(body.name)
        seat, token = await app.master.join(live, body.seat, name)
    return SeatTaken.build(seat=seat, token=token)


@router.get("/{game_id}", response_model=GameInfo, responses=error_responses(403, 404))
async def get_game(live: Readable) -> GameInfo:
    return GameInfo.build(
        id=live.id,
        seq=live.seq,
        created_at=live.created_at,
        turn_seconds=live.turn_seconds,
        **live.meta(),
        state=live.state_view,
        rated=live.rated,
        assisted=live.assisted,
        competition=live.competition(),
    )


@router.get("", response_model=GameList, responses=error_responses(400))
async def list_games(app: App, status: ListStatus | None = None, limit: int = 50) -> GameList:
    rows = await app.store.list_games(status, max(1, min(limit, 200)))
    return GameList.build(
        games=[
            GameListEntry.build(
                id=row.id,
                variant=row.variant,
                options=row.options,
                status=row.status,
                seq=row.seq,
                players=[seat.get("name") for seat in row.seats],
                created_at=row.created_at.isoformat() if row.created_at else None,
                updated_at=row.updated_at.isoformat() if row.updated_at else None,
            )
            for row in rows
        ]
    )


@router.get("/{game_id}/ratings", response_model=GameRatings, responses=error_responses(403, 404))
async def game_ratings(live: Readable, app: App) -> GameRatings:
    """Whether the game is rated, and what it did to each account's rating (the end screen)."""
    reason = await app.ratings.why_unrated(live)
    if reason is not None:
        return GameRatings.build(rated=live.rated, status="unrated", reason=reason, changes=[])
    rows = await app.ratings.changes(live.id) if live.game.state.finished else []
    if not rows:
        return GameRatings.build(rated=True, status="pending", changes=[])
    seat_of = {account: seat for seat, account in accounts_of(live.seats).items()}
    changes = []
    for row in rows:
        before = shown(Rating(row.mu_before, row.sigma_before))
        after = shown(Rating(row.mu_after, row.sigma_after))
        seat = seat_of.get(row.account_id)
        name = DELETED_NAME if seat is None else str(live.seats[seat]["name"])
        changes.append(
            RatingChange.build(
                seat=-1 if seat is None else seat,
                name=name,
                pool=row.pool,
                before=before,
                after=after,
                change=after - before,
            )
        )
    changes.sort(key=lambda change: change.seat)
    return GameRatings.build(rated=True, status="rated", changes=changes)


@router.get("/{game_id}/record", response_model=Record, responses=error_responses(403, 404))
async def game_record(live: Readable) -> JSONResponse:
    """The game's record, as a file to save (docs/record.md)."""
    return JSONResponse(
        live.record(),
        headers={"content-disposition": f'attachment; filename="dicepoker-{live.id}.json"'},
    )


@router.get(
    "/{game_id}/position", response_model=Position, responses=error_responses(400, 403, 404)
)
async def game_position(live: Readable, turn: int = 0, roll: int = 0) -> Position:
    return position(live.record(), turn, roll)


@router.get(
    "/{game_id}/advice",
    dependencies=ANALYSING,
    response_model=GameAdvice,
    responses=error_responses(403, 404, 409, 429),
)
async def game_advice(live: Readable, app: App) -> dict[str, Any]:
    """The advisor's values for the player to move now (the table's hint toggle): 403
    `competitive` in a game played without the expert's help (docs/fair-play.md)."""
    state = live.game.state
    if state.finished:
        raise Refusal("game_over", "the game is over")
    refusal = live.help_refusal()
    if refusal is not None:
        raise refusal
    advice = await app.advising(state)
    return {"seq": live.seq, **advice}


@router.get(
    "/{game_id}/analysis",
    dependencies=ANALYSING,
    response_model=Analysis,
    responses=error_responses(403, 404, 429),
)
async def game_analysis(live: Readable, app: App) -> dict[str, Any]:
    """Every decision of the game so far against the best option (the finished-game page); a
    game still being played is analysed once per position (its seq). A game played without
    the expert's help opens it when it is over (a daily challenge's when its day is): 403
    `competitive` before."""
    refusal = live.help_refusal()
    if refusal is not None:
        raise refusal
    at = None if live.game.state.finished else live.seq
    analysis = await app.analyses.analysis(f"game:{live.id}", live.record(), live.levels(), at=at)
    return with_links(analysis, f"/replay/g/{live.id}")


@router.get("/{game_id}/verify", response_model=DiceCheck, responses=error_responses(403, 404, 409))
async def game_verify(live: Readable) -> dict[str, Any]:
    """The fair-dice check of a finished game (its seed is revealed only at the end)."""
    if not live.game.state.finished:
        raise Refusal("not_finished", "the dice seed is revealed when the game is over")
    if live.seed_withheld():
        raise Refusal(
            "seed_withheld", "this daily challenge's dice seed is revealed when its day is over"
        )
    return (await asyncio.to_thread(verify_record, live.record())).as_json()


@router.post(
    "/{game_id}/rematch",
    status_code=201,
    dependencies=CREATING,
    response_model=RematchCreated,
    responses={
        200: {"model": RematchCreated, "description": "the rematch existed already"},
        **error_responses(403, 404, 409, 429),
    },
)
async def rematch(live: Live, app: App, bearer: Bearer, response: Response) -> RematchCreated:
    """The rematch of a finished game, asked by one of its seats (its token as a bearer token):
    the same variant, options and seats. Asked again, from any seat, it is the same game."""
    if bearer is None:
        raise Refusal("spectator", "only a seat of the game can ask for a rematch: send its token")
    seat = app.master.seat_of(live, bearer.credentials)
    if seat is None:
        raise Refusal("bad_token", "this token holds no seat of the game")
    made, created = await app.master.rematch(live)
    if not created:
        response.status_code = 200
    return RematchCreated.build(
        id=made.id, url=f"/g/{made.id}", seat=seat, token=bearer.credentials, created=created
    )
