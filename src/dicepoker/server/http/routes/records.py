"""Imported records: stored exactly as they were checked, then replayed, analysed and verified.

Every route answers its model of `dicepoker.protocol` and documents the errors it really
answers. The import reads the raw body itself (its size is limited before it is parsed, and it
is parsed strictly: duplicate keys, NaN, lone surrogates, deep nesting are refused); the
OpenAPI document still gives the body's schema (`Record`).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from dicepoker.engine import reason_key
from dicepoker.fair import RECORD_KEY, verify_record
from dicepoker.master import Refusal
from dicepoker.protocol import (
    Analysis,
    DiceCheck,
    Position,
    Record,
    RecordStored,
    error_responses,
    record_body,
)
from dicepoker.record import RecordError, RecordTurnError, check_record, load_record
from dicepoker.server.community.analysis import position, with_links
from dicepoker.server.services import ANALYSING, CREATING, Services, services

router = APIRouter(prefix="/api/records", tags=["records"])

App = Annotated[Services, Depends(services)]


def reason_fields(reason: str) -> dict[str, Any]:
    """The `reason` and `params` of an error body for an engine's reason said as data."""
    said = reason_key(reason)
    return {} if said is None else {"reason": said[0], "params": dict(said[1])}


@router.post(
    "",
    status_code=201,
    dependencies=CREATING,
    response_model=RecordStored,
    responses=error_responses(403, 413, 422, 429),
    openapi_extra=record_body(),
)
async def import_record(request: Request, app: App) -> RecordStored:
    """A record, checked (read strictly, its players' names cleaned as the web cleans a seat's,
    replayed through the engine to the end it claims, its shape the `Record` model's), then
    stored."""
    limits = app.settings
    body = await request.body()
    if len(body) > limits.max_record_bytes:
        raise Refusal("too_large", f"a record is at most {limits.max_record_bytes} bytes")
    try:
        record = load_record(body)
        turns = record.get("turns")
        if isinstance(turns, list) and len(turns) > limits.max_record_turns:
            message = f"a record has at most {limits.max_record_turns} turns, not {len(turns)}"
            raise Refusal("bad_record", message)
        check_record(record)
    except RecordTurnError as exc:
        raise Refusal("bad_record", str(exc), turn=exc.turn, **reason_fields(exc.reason)) from None
    except RecordError as exc:
        raise Refusal("bad_record", str(exc)) from None
    await _copy_refusal(app, record, analysis=False)
    record_id = secrets.token_urlsafe(8)
    # What was checked, and only that, is stored: strict JSON in, the same JSON out (but for
    # the names, cleaned on reading).
    await app.store.save_record(record_id, json.dumps(record, ensure_ascii=False))
    return RecordStored.build(id=record_id, url=f"/replay/r/{record_id}")


async def _copy_refusal(app: Services, record: dict[str, Any], *, analysis: bool) -> None:
    """Refuse what the game a record copies would refuse itself (fair play: a copy is no way
    around it): a copy of a daily challenge's game before its day is over, and the analysis of a
    copy of a game still played without the expert's help. The game is known by the record's
    dice commitment."""
    entry = record.get(RECORD_KEY)
    found = entry.get("commitment") if isinstance(entry, dict) else None
    if not isinstance(found, str):
        return
    for game_id in await app.store.games_committed_to(found):
        live = await app.master.load(game_id)
        if live is None:
            continue
        refusal = live.help_refusal() if analysis else None
        private = live.private_now()
        app.master.release(live)
        if private:
            raise Refusal(
                "daily_private",
                "a record of today's daily challenge can be seen when its day is over",
            )
        if refusal is not None:
            raise refusal


async def stored_record(record_id: str, request: Request) -> dict[str, Any]:
    text = await services(request).store.record(record_id)
    if text is None:
        raise Refusal("not_found", "no such record")
    data: dict[str, Any] = json.loads(text)
    return data


Stored = Annotated[dict[str, Any], Depends(stored_record)]


@router.get("/{record_id}", response_model=Record, responses=error_responses(404))
async def get_record(record: Stored) -> JSONResponse:
    """The record as it was stored (the same JSON that was imported)."""
    return JSONResponse(record)


@router.get(
    "/{record_id}/analysis",
    dependencies=ANALYSING,
    response_model=Analysis,
    responses=error_responses(403, 404, 422, 429),
)
async def record_analysis(record_id: str, record: Stored, app: App) -> dict[str, Any]:
    """Every decision of the record against the best option; 403 `competitive` for a copy of a
    game still played without the expert's help, `daily_private` for one of a daily challenge
    before its day is over."""
    await _copy_refusal(app, record, analysis=True)
    analysis = await app.analyses.analysis(f"record:{record_id}", record)
    return with_links(analysis, f"/replay/r/{record_id}")


@router.get("/{record_id}/verify", response_model=DiceCheck, responses=error_responses(404))
async def record_verify(record: Stored) -> dict[str, Any]:
    return (await asyncio.to_thread(verify_record, record)).as_json()


@router.get(
    "/{record_id}/position", response_model=Position, responses=error_responses(400, 404, 422)
)
async def record_position(record: Stored, turn: int = 0, roll: int = 0) -> Position:
    return position(record, turn, roll)
