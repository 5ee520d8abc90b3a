"""The REST API's bodies (docs/api.md): what each route takes and answers, and the error shape.

Requests are read by FastAPI with these models; answers are built by the server from them, so
`response_model` and the OpenAPI document say exactly what is sent.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, JsonValue, WithJsonSchema, field_validator

from dicepoker.protocol.base import Absent, Strict, Wire, absent
from dicepoker.protocol.messages import (
    ASSISTED,
    COMPETITION,
    WIN_PROBABILITY,
    ClockView,
    FairDiceView,
    SeatView,
    Status,
)
from dicepoker.protocol.record import Record
from dicepoker.protocol.refusals import CODES
from dicepoker.protocol.view import GameView, RulesView

MAX_NAME = 40


def clean_name(value: str | None) -> str | None:
    """Names are plain text: trimmed, control characters removed, at most MAX_NAME characters.

    Not printable are the control characters (NUL, escape sequences' ESC, ...), the invisible
    format characters (bidirectional overrides such as U+202E, zero-width spaces and joiners) and
    separators other than the space: a name cannot reorder or hide the text around it. The one
    function for every name from outside: the web's seats and the players of imported records.
    """
    if value is None:
        return None
    if not value.isprintable():  # the common case, a plain name, is checked at C speed
        value = "".join(ch for ch in value if ch.isprintable())
    return value.strip()[:MAX_NAME].strip() or None


# --- requests --------------------------------------------------------------------------------


class SeatSpec(Strict):
    kind: Literal["human", "bot"]
    name: str | None = None
    level: str | None = None
    account: bool = Field(
        default=False,
        description="the logged-in player's own seat, under their account (one per game)",
    )

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        return clean_name(value)


class CreateGame(Strict):
    variant: str
    options: dict[str, Any] = Field(default_factory=dict)
    seats: list[SeatSpec] = Field(min_length=1, max_length=8)
    turn_seconds: int | None = Field(default=None, ge=0, le=3600)
    rated: bool = Field(
        default=False, description="rate the game when it ends if every person is an account"
    )
    assisted: bool | None = Field(
        default=None,
        description=(
            "open the expert's help (hints, the advice, the analysis while it runs) to the table; "
            "unset: open for practice alone or against bots, closed for a game with other "
            "people; never open in a rated game (docs/fair-play.md)"
        ),
    )


class JoinGame(Strict):
    seat: int | None = Field(default=None, ge=0, le=7)
    name: str | None = Field(
        default=None, description="needed when anonymous; a logged-in player plays as the account"
    )

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        if value is None:
            return None
        cleaned = clean_name(value)
        if cleaned is None:
            raise ValueError("a name is needed to take a seat")
        return cleaned


# --- answers ---------------------------------------------------------------------------------


#: `abandoned`: closed because nobody played it for too long (never rated).
UnratedReason = Literal[
    "not_asked", "solitaire", "anonymous_seat", "abandoned", "repeated_opponents"
]


class CreatedSeat(SeatView):
    """A seat of a new game, with its token: only for a named person's seat, else null."""

    token: str | None


class GameCreated(Wire):
    """`POST /api/games` (201)."""

    id: str
    url: str
    seats: list[CreatedSeat]
    rated: bool = Field(
        default=False, description="it will be rated when it ends, as its seats stand now"
    )
    unrated_reason: UnratedReason | Absent = absent(
        "why it will not be rated: not asked, a solitaire, or a person's seat is not an account's"
    )


class RatingChange(Wire):
    """What a rated game did to one account's shown rating."""

    seat: int
    name: str
    pool: str
    before: int
    after: int
    change: int


class GameRatings(Wire):
    """`GET /api/games/{id}/ratings`: whether the game is rated, and its changes once it is."""

    rated: bool = Field(description="asked to be rated")
    status: Literal["rated", "pending", "unrated"] = Field(
        description="rated (changes given), pending (not over, or being written), unrated"
    )
    reason: UnratedReason | Absent = absent("why it is not rated")
    changes: list[RatingChange]


class SeatTaken(Wire):
    """`POST /api/games/{id}/join`."""

    seat: int
    token: str


class GameInfo(Wire):
    """`GET /api/games/{id}`: the public state."""

    id: str
    seq: int
    created_at: str
    turn_seconds: int
    status: Status
    seats: list[SeatView]
    clock: ClockView | None
    fair_dice: FairDiceView | None
    win_probability: list[float] | Absent = absent(WIN_PROBABILITY)
    state: GameView
    rated: bool = Field(default=False, description="asked to be rated when it ends")
    assisted: bool = Field(default=True, description=ASSISTED)
    competition: Literal["rated", "daily", "casual"] | None = Field(
        default=None, description=COMPETITION
    )


class GameListEntry(Wire):
    id: str
    variant: str
    options: dict[str, JsonValue]
    status: Status
    seq: int
    players: list[str | None] = Field(description="names in seat order; null: an open seat")
    created_at: str | None
    updated_at: str | None


class GameList(Wire):
    """`GET /api/games`: newest first."""

    games: list[GameListEntry]


class Position(Wire):
    """`GET /api/{games|records}/{id}/position?turn=T&roll=R`: the view after `turn` complete
    turns and `roll` rolls of the next (both clamped to the record)."""

    turn: int
    roll: int
    turns: int = Field(description="the number of turns in the record")
    rolls: int = Field(description="the rolls of turn `turn + 1`")
    move: str | None = Field(description="the move of turn `turn + 1`, if any")
    players: list[str]
    seats: list[int] = Field(description="the seat that played each turn of the record, in order")
    state: GameView


class AdviceOption(Wire):
    """An option with the mover's expected final score after it; `worth` (what the expert
    ranks by) and `win` (its chance of winning, 0 to 1) where the advisor has them."""

    action: str
    value: float
    win: float | Absent = absent("the chance of winning after it, 0 to 1")
    worth: float | Absent = absent("what the expert ranks by")


class Advice(Wire):
    """The advisor's values for the player to move (`dicepoker.advisor.Advice.as_json`)."""

    seat: int
    method: Literal["solver", "expectimax"]
    best: AdviceOption
    options: list[AdviceOption]


class GameAdvice(Advice):
    """`GET /api/games/{id}/advice`: the advice at event `seq`."""

    seq: int


class Decision(Wire):
    """A decision of the game against the expert's choice (`dicepoker.review.Decision`)."""

    turn: int = Field(description="the record's turn (1-based, every player's turns counted)")
    roll: int = Field(description="the rolls of the turn before the decision")
    seat: int
    action: str
    best: str = Field(description="the expert's choice")
    value: float = Field(description="the mover's expected final score after the action taken")
    best_value: float
    loss: float = Field(description="the expert's measure of its choice less the action's")
    win_before: list[float] | None = Field(
        description="every seat's chance of winning at the decision (null: no rivals)"
    )
    win_after: list[float] | None = Field(
        description="every seat's chance once the action is chosen, before a reroll lands"
    )
    win_lost: float | None = Field(
        description="the mover's chance after the expert's choice less after the action"
    )
    round: int = Field(
        description="the mover's round of the game, as the pages say it (`view.turn_count`)"
    )
    rounds: int = Field(description="the game's rounds (a sheet's cells)")
    link: str | Absent = absent("the replay viewer at the position (from the API)")


class PlayerAnalysis(Wire):
    seat: int
    name: str
    decisions: int
    mistakes: int
    expected_loss: float
    mean_loss: float
    luck: float = Field(description="the luck of the player's rolls, in expected points")
    luck_win: float | None = Field(description="the same in chance of winning (null: no rivals)")
    win_lost: float | None = Field(description="chance of winning lost by decisions")
    verdict: Literal["perfect", "excellent", "strong", "decent", "shaky", "weak"] = Field(
        description="the play by its mean loss per decision (docs/analysis.md)"
    )
    worst: list[Decision]
    key_moments: list[Decision] = Field(description="the three costliest decisions")


class RollLuck(Wire):
    """How far a roll's dice moved the mover's expected final score and chance of winning."""

    turn: int
    roll: int = Field(description="which roll of the turn (1-based)")
    seat: int
    dice: list[int]
    expected_before: float
    expected_after: float
    luck: float
    win_before: float | None
    win_after: float | None
    luck_win: float | None
    round: int = Field(description="the mover's round of the game (`view.turn_count`)")
    rounds: int = Field(description="the game's rounds (a sheet's cells)")


class CurvePoint(Wire):
    turn: int = Field(description="complete turns played (the replay viewer's turn)")
    roll: int = Field(description="rolls of the next turn")
    chances: list[float]


class Swing(Wire):
    index: int = Field(description="the curve point reached (from the one before)")
    seat: int
    change: float
    turn: int
    roll: int
    cause: Literal["roll", "decision"]


class Analysis(Wire):
    """`GET /api/{games|records}/{id}/analysis` (`dicepoker.review.analyse(...).as_json()`)."""

    variant: str
    method: str
    rolls_per_turn: int
    players: list[PlayerAnalysis]
    decisions: list[Decision]
    rolls: list[RollLuck]
    curve: list[CurvePoint] = Field(description="every position's chances (empty: no rivals)")
    swings: list[Swing]


class DiceCheck(Wire):
    """`GET /api/{games|records}/{id}/verify` (`dicepoker.fair.verify_record(...).as_json()`)."""

    ok: bool
    reason: (
        Literal[
            "bad_record",
            "no_fair_dice",
            "unknown_scheme",
            "bad_commitment",
            "no_seed",
            "bad_seed",
            "commitment_mismatch",
            "dice_differ",
        ]
        | None
    )
    message: str
    scheme: str
    commitment: str | None
    seed: str | None
    rolls: int
    dice: int
    turn: int | None
    roll: int | None
    position: int | None
    expected: list[int] | None


class RecordStored(Wire):
    """`POST /api/records` (201)."""

    id: str
    url: str


class OptionInfo(Wire):
    name: str
    type: Literal["int", "bool"]
    default: bool | int | None
    minimum: int | None
    maximum: int | None
    help: str
    pool: bool = Field(
        default=False, description="its value is part of the rating pool's name (school-3)"
    )


class VariantInfo(Wire):
    name: str
    title: str
    min_players: int
    max_players: int
    options: list[OptionInfo]
    rules: RulesView = Field(description="the rules of the default options")


class VariantList(Wire):
    """`GET /api/variants`."""

    levels: list[str] = Field(description="every bot level: the ladder's, then the others")
    ladder: list[str] = Field(
        default_factory=list, description="the ladder's levels, weakest first (the last: expert)"
    )
    level_ratings: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="per rating pool (the variant, then each pool option's value: school-3), "
        "each bot level's fixed rating as shown",
    )
    variants: list[VariantInfo]


# --- errors ----------------------------------------------------------------------------------


def _http_code_schema() -> dict[str, Any]:
    return {
        "type": "string",
        "anyOf": [{"const": code, "description": known.meaning} for code, known in CODES.items()]
        + [{"type": "string"}],
    }


class ErrorBody(Wire):
    """A refusal: a stable `code`, a short `message` (English); `turn` (1-based) for a record's
    bad turn; `reason` and `params` where the engine said why as data, so that a page can say it
    in its own language (the catalog's `reason.{reason}`, row ids in `params` as ids)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    code: Annotated[str, WithJsonSchema(_http_code_schema())]
    message: str
    turn: int | Absent = absent("a record's first bad turn (1-based)")
    reason: str | Absent = absent("why, as a key: not_made, no_die, reserve_short, ...")
    params: dict[str, str | int] | Absent = absent("the values the reason names (row ids as ids)")


class ErrorResponse(Wire):
    """Every error answer of the API: `{"error": {"code", "message", ...}}`."""

    error: ErrorBody


#: The error answers of the API and when each comes (docs/api.md).
ERROR_STATUSES: dict[int, str] = {
    400: "bad input: a body or parameter of the wrong shape (`bad_request`), a name or password"
    " that is not allowed (`bad_name`, `bad_password`)",
    401: "not logged in (`not_logged_in`), or a wrong name or password (`bad_login`)",
    403: "no seat token (`spectator`), one that holds no seat of the game (`bad_token`), a"
    " request with a session cookie from another site (`bad_origin`), a disabled account"
    " (`account_disabled`)",
    404: "no such game, record, page, puzzle or daily challenge (`not_found`), no puzzle of a"
    " preset yet (`no_puzzle`)",
    409: "a conflict: the seat is taken, the game is over or not finished yet (`not_finished`),"
    " the name is taken (`name_taken`), a daily game's seed is withheld until its day is over"
    " (`seed_withheld`), today's challenge was played already (`daily_played`)",
    413: "the body is too large (`too_large`)",
    422: "invalid options, seats or record (`bad_options`, `bad_seats`, `bad_record` with `turn`)",
    429: "rate limited (`rate_limited`, with a Retry-After header)",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """FastAPI's `responses=` for a route's error answers, all in the shape `ErrorResponse`."""
    return {
        status: {"model": ErrorResponse, "description": ERROR_STATUSES[status]}
        for status in statuses
    }


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {key: _inline(value, defs) for key, value in node.items() if key != "$defs"}
    if isinstance(node, list):
        return [_inline(value, defs) for value in node]
    return node


def record_body() -> dict[str, Any]:
    """FastAPI's `openapi_extra` for `POST /api/records`: the body is a `Record` (read by the
    route itself, strictly, so FastAPI does not parse it), its schema written out in full."""
    schema = Record.model_json_schema()
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _inline(schema, schema.get("$defs", {}))}},
        }
    }
