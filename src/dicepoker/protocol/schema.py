"""The published JSON Schema of the WebSocket protocol (both directions).

Served at `/api/schema/ws.json` and kept in docs/ws-schema.json (a test checks that the file is
the schema of the code). Regenerate the file with:

    python -c "import dicepoker.protocol as p; print(p.ws_schema_text(), end='')" \
        > docs/ws-schema.json
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from dicepoker.protocol.messages import SUBPROTOCOLS, ClientMessage, ServerMessage

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _part(kind: Any, mode: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    schema = TypeAdapter(kind).json_schema(mode=mode, ref_template="#/$defs/{model}")
    return schema.pop("$defs", {}), schema


def ws_schema() -> dict[str, Any]:
    """Every message of `dicepoker.v2` and `dicepoker.v1`: `ServerMessage` (what the server
    sends, as it writes them) and `ClientMessage` (what it reads), each a union on `type`; a
    message of either direction validates against the whole schema."""
    server_defs, server = _part(ServerMessage, "serialization")
    client_defs, client = _part(ClientMessage, "validation")
    shared = set(server_defs) & set(client_defs)
    clash = [name for name in shared if server_defs[name] != client_defs[name]]
    if clash:
        raise RuntimeError(f"two different definitions named {clash}")
    defs = {**server_defs, **client_defs}
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


def ws_schema_text() -> str:
    """The schema as the file docs/ws-schema.json holds it."""
    return json.dumps(ws_schema(), indent=2, ensure_ascii=False) + "\n"
