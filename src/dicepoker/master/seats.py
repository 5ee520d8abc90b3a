"""Who sits where, and who may act for a seat: the seat check.

A seat is `{"kind": "human" | "bot", "name", "level", "token_hash"}`, and `"account"` (its id)
for a person's seat bound to a logged-in account. A person's seat is taken
with a random token that only its taker receives; the store keeps the token's SHA-256, and a
token is checked against it in constant time. A human seat without a name is open: the game
waits (`open`) until every seat is taken.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dicepoker.bots import LEVELS
from dicepoker.engine import GameOverError, IllegalActionError, NotYourTurnError
from dicepoker.master.refusal import Refusal, abandoned_refusal, waiting
from dicepoker.names import check_seat_name

if TYPE_CHECKING:
    from dicepoker.master.live import LiveGame

DEFAULT_LEVEL = "greedy"
#: A game nobody played for too long, closed (`dicepoker serve --abandon-after`): it is never
#: played again, its seat tokens are refused, its record stays.
ABANDONED = "abandoned"
#: The statuses of a game still to be played (the lobby's live lists).
LIVE_STATUSES = ("open", "running")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> tuple[str, str]:
    """A fresh seat token (192 random bits) and the hash that is stored."""
    token = secrets.token_urlsafe(24)
    return token, hash_token(token)


def status_of(seats: Sequence[Mapping[str, Any]], finished: bool) -> str:
    """`finished`, `open` (a human seat is not taken yet) or `running`."""
    if finished:
        return "finished"
    if any(seat["kind"] == "human" and seat.get("name") is None for seat in seats):
        return "open"
    return "running"


def moves_alone(seats: Sequence[Mapping[str, Any]], turn_seconds: int) -> bool:
    """Whether a running game may move with nobody touching it: a bot's seat or a turn clock."""
    return turn_seconds > 0 or any(seat["kind"] == "bot" for seat in seats)


def open_seats(seats: Sequence[Mapping[str, Any]]) -> list[int]:
    return [n for n, s in enumerate(seats) if s["kind"] == "human" and s.get("name") is None]


def seat_of(seats: Sequence[Mapping[str, Any]], token: str) -> int | None:
    """The seat `token` belongs to, compared in constant time; None when it matches none."""
    digest = hash_token(token)
    found = None
    for n, seat in enumerate(seats):
        stored = seat.get("token_hash")
        if stored and hmac.compare_digest(stored, digest):
            found = n
    return found


def accounts_of(seats: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """Each seat bound to an account: seat number -> account id."""
    return {n: int(s["account"]) for n, s in enumerate(seats) if s.get("account") is not None}


def unrated_reason(seats: Sequence[Mapping[str, Any]], rated: bool) -> str | None:
    """Why a game will not be rated as its seats stand (None: it will be): not asked, or a
    person's seat taken by someone without an account. Open seats may still be taken by
    accounts; at the end every person's seat must be an account's."""
    if not rated:
        return "not_asked"
    if len(seats) < 2:
        return "solitaire"
    for seat in seats:
        if seat["kind"] == "human" and seat.get("name") is not None and "account" not in seat:
            return "anonymous_seat"
    return None


def public_seats(seats: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The seats as everyone may see them (no token hash)."""
    return [
        {
            "seat": n,
            "kind": seat["kind"],
            "name": seat.get("name"),
            "level": seat.get("level"),
            "taken": seat["kind"] == "bot" or seat.get("name") is not None,
            "account": seat.get("account") is not None,
        }
        for n, seat in enumerate(seats)
    ]


def seat_requests(
    requests: Sequence[Mapping[str, Any]],
) -> tuple[list[dict[str, Any]], list[str | None]]:
    """The seats to store for a new game's requested ones, and the token of each (None for
    bots and open seats). A bot seat is named after its level when no name is given. A person's
    seat without an account follows `dicepoker.names.check_seat_name` (no blank, zalgo, bot's
    or deleted player's name; whether an account has the name is the server's to check)."""
    seats: list[dict[str, Any]] = []
    tokens: list[str | None] = []
    for n, request in enumerate(requests):
        if request["kind"] == "bot":
            level = request.get("level") or DEFAULT_LEVEL
            if level not in LEVELS:
                raise Refusal("bad_seats", f"unknown bot level {level!r}")
            name = request.get("name") or f"{level.capitalize()} {n + 1}"
            seats.append({"kind": "bot", "name": name, "level": level})
            tokens.append(None)
        elif request.get("name"):
            token, digest = new_token()
            seat = {"kind": "human", "name": request["name"], "token_hash": digest}
            if request.get("account") is not None:
                seat["account"] = int(request["account"])
            else:
                seat["name"] = check_seat_name(request["name"])
            if request.get("strength") is not None:
                # How the chances judge this person (dicepoker.winprob.strength), from the
                # server's reading of their rating when the game was made.
                seat["strength"] = dict(request["strength"])
            seats.append(seat)
            tokens.append(token)
        else:
            seats.append({"kind": "human", "name": None})
            tokens.append(None)
    return seats, tokens


def turn_refusal(live: LiveGame, seat: int) -> Refusal | None:
    """Why `seat` may not act now, as the engine refuses any intent (None: it may)."""
    state = live.game.state
    if live.status == ABANDONED:
        return abandoned_refusal()
    if live.status == "open":
        return waiting()
    problem: IllegalActionError
    if state.finished:
        problem = GameOverError("the game is over")
    elif seat != state.seat:
        problem = NotYourTurnError(f"it is {state.players[state.seat]}'s turn, not seat {seat}'s")
    else:
        return None
    return Refusal(problem.code, problem.reason)
