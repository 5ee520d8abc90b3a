"""The published JSON Schemas of the wire contract: the WebSocket protocol (both directions) and
the REST API's answers.

`ws_schema()` is served at `/api/schema/ws.json` and kept in docs/ws-schema.json; `rest_schema()`
is kept in docs/rest-schema.json (the OpenAPI document says the same per route; this is the one
place every answer's model is a named definition). Tests check that the files are the schemas of
the code, and the page scripts' types (src/dicepoker/web/typings/protocol.d.ts) are generated from
the two files (`bash scripts/gen-types`). Regenerate the files with:

    .venv/bin/python -c "import dicepoker.protocol.schema as s; s.write_published()"
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema

from dicepoker.protocol.accounts import Me
from dicepoker.protocol.daily import DailyChallenge, DailyLeaderboard, DailyStarted
from dicepoker.protocol.messages import SUBPROTOCOLS, ClientMessage, ServerMessage
from dicepoker.protocol.players import Leaderboard, Player
from dicepoker.protocol.puzzles import Puzzle, PuzzleAnswer
from dicepoker.protocol.record import Record
from dicepoker.protocol.rest import (
    Analysis,
    DiceCheck,
    ErrorResponse,
    GameAdvice,
    GameCreated,
    GameInfo,
    GameList,
    GameRatings,
    Position,
    RecordStored,
    SeatTaken,
    VariantList,
)
from dicepoker.protocol.table_talk import RematchCreated

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

#: Every answer model of the REST API (the routes' `response_model`s) and its error shape.
REST_ANSWERS: tuple[type[Any], ...] = (
    Analysis,
    DailyChallenge,
    DailyLeaderboard,
    DailyStarted,
    DiceCheck,
    ErrorResponse,
    GameAdvice,
    GameCreated,
    GameInfo,
    GameList,
    GameRatings,
    Leaderboard,
    Me,
    Player,
    Position,
    Puzzle,
    PuzzleAnswer,
    Record,
    RecordStored,
    RematchCreated,
    SeatTaken,
    VariantList,
)


class _Published(GenerateJsonSchema):
    """Pydantic's schema without a title on every field: a field's title is its name again
    ("Seat" for `seat`), and a generator of types reads a title as a type to declare."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def _part(kind: Any, mode: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    schema = TypeAdapter(kind).json_schema(
        mode=mode, ref_template="#/$defs/{model}", schema_generator=_Published
    )
    return schema.pop("$defs", {}), schema


def _merged(*parts: dict[str, Any]) -> dict[str, Any]:
    """The definitions of several parts as one: a name defined twice must mean the same."""
    merged: dict[str, Any] = {}
    for defs in parts:
        clash = [name for name in defs if name in merged and merged[name] != defs[name]]
        if clash:
            raise RuntimeError(f"two different definitions named {clash}")
        merged |= defs
    return merged


def ws_schema() -> dict[str, Any]:
    """Every message of `dicepoker.v2` and `dicepoker.v1`: `ServerMessage` (what the server
    sends, as it writes them) and `ClientMessage` (what it reads), each a union on `type`; a
    message of either direction validates against the whole schema."""
    server_defs, server = _part(ServerMessage, "serialization")
    client_defs, client = _part(ClientMessage, "validation")
    defs = _merged(server_defs, client_defs)
    defs["ServerMessage"] = {
        "description": "A message the server sends (JSON text, one per WebSocket message).",
        **server,
    }
    defs["ClientMessage"] = {
        "description": "A message a client sends: at most 4 KiB, no duplicate keys, exact types.",
        **client,
    }
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": "/api/schema/ws.json",
        "title": f"dicepoker WebSocket protocol ({', '.join(SUBPROTOCOLS)})",
        "description": "The messages of /ws/games/{id} (docs/api.md).",
        "anyOf": [{"$ref": "#/$defs/ServerMessage"}, {"$ref": "#/$defs/ClientMessage"}],
        "$defs": dict(sorted(defs.items())),
    }


def rest_schema() -> dict[str, Any]:
    """Every answer body of the REST API (`REST_ANSWERS`, as the server writes them), each a
    named definition; an answer of any route validates against the whole schema."""
    parts = [_part(model, "serialization") for model in REST_ANSWERS]
    defs = _merged(*(part_defs for part_defs, _ in parts))
    for model, (_, schema) in zip(REST_ANSWERS, parts, strict=True):
        defs = _merged(defs, {model.__name__: schema})
    return {
        "$schema": SCHEMA_DIALECT,
        "title": "dicepoker REST API answers",
        "description": "The bodies the routes of /api answer with (docs/api.md).",
        "anyOf": [{"$ref": f"#/$defs/{model.__name__}"} for model in REST_ANSWERS],
        "$defs": dict(sorted(defs.items())),
    }


def _text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def ws_schema_text() -> str:
    """The WebSocket schema as the file docs/ws-schema.json holds it."""
    return _text(ws_schema())


def rest_schema_text() -> str:
    """The REST answers' schema as the file docs/rest-schema.json holds it."""
    return _text(rest_schema())


#: Each published file (under docs/) and the text it holds.
PUBLISHED = {"ws-schema.json": ws_schema_text, "rest-schema.json": rest_schema_text}


#: The repository's docs/ folder (this file is src/dicepoker/protocol/schema.py).
DOCS = Path(__file__).resolve().parents[3] / "docs"


def write_published(docs: Path = DOCS) -> None:
    """Write the published schemas into `docs` (the repository's docs/ by default)."""
    for name, text in PUBLISHED.items():
        (docs / name).write_text(text(), encoding="utf-8")
