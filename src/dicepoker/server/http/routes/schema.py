"""The WebSocket protocol's JSON Schema (`/api/schema/ws.json`, also docs/ws-schema.json)."""

from __future__ import annotations

import functools
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from dicepoker.protocol import ws_schema

router = APIRouter(prefix="/api/schema", tags=["schema"])


@functools.cache
def _schema() -> dict[str, Any]:
    return ws_schema()


@router.get("/ws.json", response_model=dict[str, Any])
async def websocket_schema() -> JSONResponse:
    """Every message of both directions of `/ws/games/{id}` (JSON Schema, draft 2020-12)."""
    return JSONResponse(_schema(), media_type="application/schema+json")
