"""Every message of the API and the WebSocket protocol, as Pydantic models.

Imported by the server and by every client (terminal client, load tester, tests); a client never
imports the server itself.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

MAX_MESSAGE_BYTES = 4096
# The WebSocket subprotocol clients offer, and how they send a seat's token beside it (in the
# `Sec-WebSocket-Protocol` header, which proxies do not log the way they log URLs).
SUBPROTOCOL = "dicepoker.v1"
TOKEN_PREFIX = "token."


def socket_protocols(token: str | None) -> list[str]:
    """The subprotocols a client offers: ours, and its seat's token if it has one."""
    return [SUBPROTOCOL] + ([TOKEN_PREFIX + token] if token else [])


def token_of(offered: list[str]) -> str | None:
    """The seat token a client offered among its subprotocols, if any."""
    for protocol in offered:
        if protocol.startswith(TOKEN_PREFIX):
            return protocol.removeprefix(TOKEN_PREFIX) or None
    return None


MAX_NAME = 40
MAX_SEQ = 2**31 - 1  # event numbers are 32-bit integers in the database


def clean_name(value: str | None) -> str | None:
    """Names are plain text: trimmed, control characters removed, at most MAX_NAME characters."""
    if value is None:
        return None
    text = "".join(ch for ch in value if ch.isprintable()).strip()
    return text[:MAX_NAME] or None


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatSpec(Strict):
    kind: Literal["human", "bot"]
    name: str | None = None
    level: str | None = None

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        return clean_name(value)


class CreateGame(Strict):
    variant: str
    options: dict[str, Any] = Field(default_factory=dict)
    seats: list[SeatSpec] = Field(min_length=1, max_length=8)
    turn_seconds: int | None = Field(default=None, ge=0, le=3600)


class JoinGame(Strict):
    seat: int | None = Field(default=None, ge=0, le=7)
    name: str

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str) -> str:
        cleaned = clean_name(value)
        if cleaned is None:
            raise ValueError("a name is needed to take a seat")
        return cleaned


# --- WebSocket: client -> server ------------------------------------------------------------


class Act(Strict):
    type: Literal["act"]
    action: str = Field(max_length=64)
    seq: int | None = Field(default=None, ge=0, le=MAX_SEQ)
    ref: str | None = Field(default=None, max_length=64)


class Auto(Strict):
    type: Literal["auto"]
    ref: str | None = Field(default=None, max_length=64)


class Sync(Strict):
    type: Literal["sync"]
    last_seq: int = Field(ge=0, le=MAX_SEQ)


class Ping(Strict):
    type: Literal["ping"]


ClientMessage = Annotated[Act | Auto | Sync | Ping, Field(discriminator="type")]
client_message = TypeAdapter[Act | Auto | Sync | Ping](ClientMessage)


def dumps(message: dict[str, Any]) -> str:
    """A server message as JSON text. orjson, because every event's state is encoded once per
    broadcast and the standard encoder took a tenth of the server's time under load."""
    return orjson.dumps(message).decode()


def error(code: str, message: str, ref: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["ref"] = ref
    return out
