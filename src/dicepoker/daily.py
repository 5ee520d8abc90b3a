"""The daily challenge's pure parts: the UTC day, when it ends, and the expert's par on a seed.

Every preset (each variant with its default options) has one solitaire challenge a day. Its
seed is the day's, shared by every game of that preset on that day, so that the same keeps give
everyone the same dice (docs/fair-dice.md); the par is the final score of the expert playing
those dice once. The server keeps the seeds and the games (dicepoker.server.community.daily); this
module keeps no state.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from dicepoker.bots import make_bot
from dicepoker.engine import totals
from dicepoker.fair import FairDice
from dicepoker.rules import get_rules
from dicepoker.simulate import play_game

#: The bot whose score on the day's dice is the par.
PAR_LEVEL = "expert"
PAR_NAME = "Expert"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class DateError(ValueError):
    """A date that is not a calendar day written YYYY-MM-DD."""


def utc_day(moment: datetime) -> date:
    """The UTC calendar day of `moment` (an aware time)."""
    return moment.astimezone(UTC).date()


def day_end(day: date) -> datetime:
    """When `day` is over: the next midnight, UTC. Its seed is revealed from then on."""
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=UTC)


def parse_day(text: str) -> date:
    """A day written YYYY-MM-DD (ISO 8601's calendar date, nothing else)."""
    if not _DATE.match(text):
        raise DateError(f"not a date written YYYY-MM-DD: {text!r}")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise DateError(f"no such day: {text!r}") from None


def par(variant: str, options: dict[str, Any], seed: str) -> int:
    """The expert's final score, playing a solitaire game of these rules on the dice of `seed`
    (derived exactly as the server derives a game's dice). Seconds of work for some rules: the
    server runs it off its event loop (a bot worker process or a thread)."""
    rules = get_rules(variant, options)
    game = play_game(rules, [make_bot(PAR_LEVEL)], FairDice(seed), names=[PAR_NAME])
    return totals(game.state)[0]
