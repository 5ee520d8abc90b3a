"""The WebSocket protocol `dicepoker.v2` and `dicepoker.v1` (docs/api.md): every message, both
directions (the two differ only in what an `event` carries).

Server to client, one union on `type` (`ServerMessage`): `welcome`, `event`, `sync`, `seats`,
`held`, `chances`, `error`, `pong`, `resync`, `rematch`, `reaction`. Client to server
(`ClientMessage`): `act`, `auto`, `keep`, `sync`, `ping`, `react`, read by `parse_client_message`,
the one place a client's text becomes a message: strict JSON (no duplicate keys), strict types
(`"seq": true` and `"seq": "0"` are not numbers), no unknown keys, at most `MAX_MESSAGE_BYTES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, ValidationError, WithJsonSchema

from dicepoker.protocol.base import Absent, Strict, Tagged, Wire, absent
from dicepoker.protocol.jsontext import JSONTextError, strict_loads
from dicepoker.protocol.refusals import CODES
from dicepoker.protocol.table_talk import React, ReactionMessage, RematchMessage
from dicepoker.protocol.view import GameView, ViewChanges

MAX_MESSAGE_BYTES = 4096
MAX_SEQ = 2**31 - 1  # event numbers are 32-bit integers in the database
MAX_MESSAGE_DEPTH = 4  # a client's messages are flat objects
MAX_DICE = 16  # a `keep` names at most this many positions (the rules check the real number)

# The WebSocket subprotocols clients offer, and how they send a seat's token beside them (in the
# `Sec-WebSocket-Protocol` header, which proxies do not log the way they log URLs). In
# `dicepoker.v2` an event carries what it changed in the view (`changes`); in `dicepoker.v1`,
# the first, the whole view (`state`). Everything else is the same in both.
SUBPROTOCOL = "dicepoker.v2"
SUBPROTOCOL_V1 = "dicepoker.v1"
#: In the server's order of preference: the first one a client offers is the one it speaks.
SUBPROTOCOLS = (SUBPROTOCOL, SUBPROTOCOL_V1)
TOKEN_PREFIX = "token."


def socket_protocols(token: str | None, subprotocol: str = SUBPROTOCOL) -> list[str]:
    """The subprotocols a client offers: ours (the newest by default), and its seat's token if
    it has one."""
    return [subprotocol] + ([TOKEN_PREFIX + token] if token else [])


def token_of(offered: list[str]) -> str | None:
    """The seat token a client offered among its subprotocols, if any."""
    for protocol in offered:
        if protocol.startswith(TOKEN_PREFIX):
            return protocol.removeprefix(TOKEN_PREFIX) or None
    return None


# --- what the messages carry besides the view ------------------------------------------------

#: `abandoned`: nobody played it for too long, and it was closed (never played again; its record
#: stays, unfinished).
Status = Literal["open", "running", "finished", "abandoned"]


class PlaysLike(Wire):
    """Whose play the chances of winning assume for a seat (dicepoker.winprob.strength)."""

    level: str = Field(description="the bot level the seat is judged to play like")
    basis: Literal["bot", "rating", "newcomer"] = Field(
        description="`bot`: its own level; `rating`: a person's rating in the game's pool; "
        "`newcomer`: a person with no rated game there (or no account)"
    )
    rating: int | None = Field(description="the shown rating it was judged from (`rating`)")


class SeatView(Wire):
    """A seat as everyone may see it (never its token)."""

    seat: int
    kind: Literal["human", "bot"]
    name: str | None = Field(description="null: an open seat")
    level: str | None = Field(description="a bot's level, else null")
    taken: bool
    account: bool = Field(
        default=False, description="a person playing under their account (a player page)"
    )
    plays_like: PlaysLike | Absent = absent(
        "the play the chances of winning assume for this seat (a table's seats)"
    )


class ClockView(Wire):
    """The turn clock while it runs: whose turn and when it runs out."""

    seat: int
    deadline: int = Field(description="milliseconds since the epoch")
    seconds: int


class FairDiceView(Wire):
    """The game's commitment to its secret dice seed; the seed once the game is over."""

    scheme: str
    commitment: str
    seed: str | Absent = absent("the seed, once the game is over")


class EventEntry(Wire):
    """An event missed while away (in `sync`)."""

    seq: int
    seat: int
    action: str


# --- server -> client ------------------------------------------------------------------------

WIN_PROBABILITY = (
    "each seat's chance of finishing first (ties shared), summing to 1, in seat order: games "
    "with rivals, once the server has judged the position (dicepoker.winprob; absent before)"
)


ASSISTED = (
    "whether the expert's help (hints, the advice, the analysis of the running game) is open to "
    "this table; decided when the game was made, it never changes (docs/fair-play.md)"
)
COMPETITION = (
    "why the help is off: `rated`, `daily` (a daily challenge) or `casual` (a game made without "
    "hints); null in an assisted game"
)


class WelcomeMessage(Tagged):
    """Sent on connect. `seat` is null for a spectator."""

    type: Literal["welcome"] = "welcome"
    seat: int | None
    seq: int
    status: Status
    seats: list[SeatView]
    clock: ClockView | None
    fair_dice: FairDiceView | None
    win_probability: list[float] | Absent = absent(WIN_PROBABILITY)
    state: GameView
    assisted: bool = Field(default=True, description=ASSISTED)
    competition: Literal["rated", "daily", "casual"] | None = Field(
        default=None, description=COMPETITION
    )


class EventMessage(Tagged):
    """One accepted action, after it was committed. In `dicepoker.v2`, `changes`: what it changed
    in the view of the event before (`seq - 1`), or, when the server cannot tell that, `state`,
    the whole view after it; in `dicepoker.v1`, always `state`. A client whose view is not at
    `seq - 1` (it missed an event) asks for a `sync`. The seats' chances of winning never ride
    on an event: judging them is kept off the move's path, and they follow as `chances`."""

    type: Literal["event"] = "event"
    seq: int
    seat: int
    action: str
    auto: bool
    status: Status
    seats: list[SeatView]
    clock: ClockView | None
    fair_dice: FairDiceView | None
    state: GameView | Absent = absent("the whole view after the event (never with `changes`)")
    changes: ViewChanges | Absent = absent(
        "`dicepoker.v2`: what the event changed in the view of `seq - 1` (never with `state`)"
    )


class SyncMessage(Tagged):
    """The answer to `sync`: the events after the client's `last_seq`, and the state now."""

    type: Literal["sync"] = "sync"
    seq: int
    events: list[EventEntry]
    status: Status
    seats: list[SeatView]
    clock: ClockView | None
    fair_dice: FairDiceView | None
    win_probability: list[float] | Absent = absent(WIN_PROBABILITY)
    state: GameView


class SeatsMessage(Tagged):
    """Someone took an open seat (`state.players` has their name)."""

    type: Literal["seats"] = "seats"
    status: Status
    seats: list[SeatView]
    clock: ClockView | None
    fair_dice: FairDiceView | None
    win_probability: list[float] | Absent = absent(WIN_PROBABILITY)
    state: GameView


def _code_schema(socket: bool) -> dict[str, Any]:
    return {
        "type": "string",
        "description": "a stable code (an unknown one may come: show `message`)",
        "anyOf": [
            {"const": code, "description": known.meaning}
            for code, known in CODES.items()
            if known.socket or not socket
        ]
        + [{"type": "string"}],
    }


class ErrorMessage(Tagged):
    """An intent or message was refused; nothing changed. `ref` echoes the intent's `ref`."""

    type: Literal["error"] = "error"
    code: Annotated[str, WithJsonSchema(_code_schema(socket=True))]
    message: str
    ref: str | Absent = absent("the intent's `ref`, when it had one")
    reason: str | Absent = absent(
        "where the engine said why as data: the catalogs' `reason.{reason}` says it in a"
        " player's language"
    )
    params: dict[str, str | int] | Absent = absent("the values the reason names (row ids as ids)")


class HeldMessage(Tagged):
    """The dice the player to move holds now for the next roll (their `keep` selection), for
    everyone at the table; news only while the game is at `seq` (not a move, never stored)."""

    type: Literal["held"] = "held"
    seq: int
    seat: int
    held: list[int] = Field(description="positions of the dice, lowest first")


class ChancesMessage(Tagged):
    """Each seat's chance of winning at `seq`, told once the position after the event of that
    seq was judged (an event never carries it); news only while the game is at `seq`."""

    type: Literal["chances"] = "chances"
    seq: int
    win_probability: list[float] = Field(description=WIN_PROBABILITY)


class PongMessage(Tagged):
    type: Literal["pong"] = "pong"


class ResyncMessage(Tagged):
    """The client fell too far behind: it should send `sync` with its last seq."""

    type: Literal["resync"] = "resync"


ServerMessage = Annotated[
    WelcomeMessage
    | EventMessage
    | SyncMessage
    | SeatsMessage
    | HeldMessage
    | ChancesMessage
    | ErrorMessage
    | PongMessage
    | ResyncMessage
    | RematchMessage
    | ReactionMessage,
    Field(discriminator="type"),
]
server_message: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def error(
    code: str,
    message: str,
    ref: str | None = None,
    reason: tuple[str, Mapping[str, str | int]] | None = None,
) -> ErrorMessage:
    """A refusal for one client (`ref` only when the intent had one; `reason`: the engine's key
    and parameters of why, when it said it as data)."""
    fields: dict[str, Any] = {"code": code, "message": message}
    if ref is not None:
        fields["ref"] = ref
    if reason is not None:
        fields["reason"], fields["params"] = reason[0], dict(reason[1])
    return ErrorMessage.build(**fields)


# --- client -> server ------------------------------------------------------------------------


class Act(Strict):
    """An intent for the client's seat. `seq`: the last seq the client saw (else `stale`)."""

    type: Literal["act"]
    action: str = Field(max_length=64)
    seq: int | None = Field(default=None, ge=0, le=MAX_SEQ)
    ref: str | None = Field(default=None, max_length=64)


class Auto(Strict):
    """Play my turn by auto-play (where the rules offer it: `rules.autoplay`)."""

    type: Literal["auto"]
    ref: str | None = Field(default=None, max_length=64)


class Sync(Strict):
    """After a reconnection: ask for what was missed."""

    type: Literal["sync"]
    last_seq: int = Field(ge=0, le=MAX_SEQ)


class Keep(Strict):
    """The dice I hold now for my next roll (my selection, as I tap them): shown to the table
    (`held`), not a move. `seq`: the last seq the client saw (else `stale`)."""

    type: Literal["keep"]
    seq: int = Field(ge=0, le=MAX_SEQ)
    keep: list[Annotated[int, Field(ge=0, le=MAX_DICE - 1)]] = Field(max_length=MAX_DICE)
    ref: str | None = Field(default=None, max_length=64)


class Ping(Strict):
    type: Literal["ping"]


AnyClientMessage = Act | Auto | Keep | Sync | Ping | React
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
client_message: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)


def parse_client_message(text: str) -> AnyClientMessage | ErrorMessage:
    """A client's message text as its message, or the refusal to send back (`too_large`,
    `bad_message` with a short reason: where and what, never the whole value)."""
    if len(text) > MAX_MESSAGE_BYTES or len(text.encode("utf-8", "surrogatepass")) > (
        MAX_MESSAGE_BYTES
    ):
        return error("too_large", "message too large")
    try:
        data = strict_loads(text, max_depth=MAX_MESSAGE_DEPTH)
    except JSONTextError as exc:
        return error("bad_message", f"not a valid message: {exc}"[:200])
    if not isinstance(data, dict):
        return error("bad_message", "not a valid message: a message is a JSON object")
    try:
        return client_message.validate_python(data, strict=True)
    except ValidationError as exc:
        return error("bad_message", f"not a valid message: {_problem(exc)}")


def _problem(exc: ValidationError) -> str:
    problems = exc.errors(include_url=False, include_input=False)
    if not problems:
        return "invalid"
    first = problems[0]
    if first["type"] in ("union_tag_invalid", "union_tag_not_found", "model_type"):
        return "'type' is act, auto, keep, sync, ping or react"
    where = ".".join(str(part) for part in first["loc"][1:])[:40]
    return f"{where}: {first['msg']}"[:160] if where else first["msg"][:160]
