"""Helpers of the security tests (tests/test_security*.py): what an error must never show,
and games made from a client address of their own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx

from live_server import LiveServer
from ws_client import Player

GOLDEN = Path(__file__).parent / "golden" / "spec_examples"

#: What must never appear in an error: tracebacks, source paths, SQL, exception class names,
#: the names of the libraries underneath.
INTERNALS = (
    re.compile(
        r"Traceback|File \"|\.py\b|/src/|/home/|/usr/|site-packages|sqlalchemy|sqlite|psycopg"
        r"|asyncpg|pydantic|starlette|fastapi|uvicorn|token_hash",
        re.IGNORECASE,
    ),
    re.compile(r"\b[A-Z]\w*(Error|Exception)\b|\b(SELECT|INSERT|UPDATE|WHERE|FROM)\b"),
)


def assert_no_internals(text: str) -> None:
    for pattern in INTERNALS:
        match = pattern.search(text)
        assert match is None, f"internal detail {match.group(0)!r} in {text[:500]!r}"


def create(
    server: LiveServer, seats: list[dict[str, Any]], address: str | None = None
) -> dict[str, Any]:
    headers = {"x-forwarded-for": address} if address else {}
    response = httpx.post(
        server.url + "/api/games",
        json={"variant": "school", "options": {"columns": 1}, "seats": seats},
        headers=headers,
        timeout=10,
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def humans(*names: str | None) -> list[dict[str, Any]]:
    return [{"kind": "human", "name": name} if name else {"kind": "human"} for name in names]


def catch_up(player: Player, seq: int) -> None:
    while player.seq < seq:
        player.recv()
