"""Assisted or competitive: whether a game opens the expert's help to the people at its table.

The advisor, the analysis of a running game and the hint keys of the web and the terminal give
the expert's choice of every decision. Where a result counts (a rated game, a daily challenge,
a game between people who did not agree to help), following them would be the expert playing,
so the server refuses them there, to its players, its spectators and anyone else alike, until
the game is over (a daily's until its day is over: others still play the same dice). This is
lichess's rule for engine help in rated games. Everything else is assisted: practice alone or
against bots, and casual games whose creator opened the help.

Decided once, when the game is made, and shown to everyone who joins (docs/fair-play.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from dicepoker.master.refusal import Refusal

#: Why a game is competitive: rated, a daily challenge, or its creator's choice (a casual game
#: between people); None: the game is assisted.
Competition = Literal["rated", "daily", "casual"]

#: The refusal's code (HTTP 403), the same for every route and key that would give the help.
CODE = "competitive"


def people(seats: Sequence[Mapping[str, Any]]) -> int:
    """The seats for people (taken or open): more than one is a game between people."""
    return sum(1 for seat in seats if seat.get("kind") == "human")


def decide(
    seats: Sequence[Mapping[str, Any]], *, rated: bool, daily: bool, asked: bool | None
) -> bool:
    """Whether a new game is assisted: never a rated or daily one; a casual game with other
    people only when its creator asks (`asked`); practice alone or against bots unless its
    creator asks it not to be."""
    if rated or daily:
        if asked:
            raise Refusal(
                "bad_request",
                "assisted: a rated game or a daily challenge is played without the expert's help",
            )
        return False
    if asked is not None:
        return asked
    return people(seats) <= 1


def competition(assisted: bool, *, rated: bool, daily: bool) -> Competition | None:
    """Why a game is competitive (what the table's badge says), or None when it is assisted."""
    if assisted:
        return None
    if daily:
        return "daily"
    return "rated" if rated else "casual"


def help_refusal(
    assisted: bool,
    finished: bool,
    *,
    rated: bool,
    reveal_at: datetime | None,
    now: datetime,
) -> Refusal | None:
    """The refusal of the expert's help for a game in this state, or None where it is open:
    always in an assisted game; once a competitive game is over (a daily challenge's once its
    day is over too)."""
    if assisted:
        return None
    if finished and (reveal_at is None or now >= reveal_at):
        return None
    why = competition(assisted, rated=rated, daily=reveal_at is not None)
    if why == "daily":
        text = "no hints or analysis of a daily challenge before its day is over"
    elif why == "rated":
        text = "no hints or analysis in a rated game before it is over"
    else:
        text = "this game was made without hints: no hints or analysis before it is over"
    return Refusal(CODE, text)
