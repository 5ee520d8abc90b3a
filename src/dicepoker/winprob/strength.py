"""How well a person at a table is judged to play: a level of the bots' ladder, from their rating.

The win model knows how each bot level plays (`skill.py`: its handicap against the expert), and
the ratings put people and bots on one scale (`dicepoker.ratings`: every level is an anchor of
measured rating in each pool). A person is judged to play like the **ladder level whose anchor
is nearest their rating** in the game's pool. Nearest, not an interpolation between the two
levels that bracket it: a level's handicap is a measured mixture of how its turns left end
(`skill.Handicap.rest`), not a figure that blends linearly, and a person's rating is uncertain
by more than the distance between two levels (a new account's sigma is 8.3 mu, about 400
shown points), so a blend would claim a precision the rating does not have.

A person with no rated game in the pool (or playing without an account) is a **newcomer**: the
weaker of the two ladder levels whose anchors bracket a new account's rating (1500, the ladder's
mean by construction of the anchors, `ratings.fit_anchors`). In every measured pool that is
`casual`. Taking the rating itself (the nearest level, `intermediate` in the Yahtzee pools)
would judge someone who has shown nothing as the ladder's average bot; the weaker bracket is
the humbler claim, and docs/analysis.md ("Whose play the chances assume") says what it was
measured against.

Everything here is pure: the server reads the ratings and puts the judgement on the seat
(`server.community.strength`), the master hands the levels on with the position.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from dicepoker.ratings import SHOWN_BASE, anchored_levels, pool_of

#: The ladder's levels, weakest first: what a person can be judged to play like.
LADDER_LEVELS: tuple[str, ...] = ("beginner", "casual", "intermediate", "advanced", "expert")

#: Why a seat is judged at its level: a bot's own, a person's rating, or a newcomer's.
Basis = Literal["bot", "rating", "newcomer"]


@dataclass(frozen=True, slots=True)
class Strength:
    """The level a seat is judged to play at, and why (`rating`: the shown rating it came
    from, for a rated person)."""

    level: str
    basis: Basis
    rating: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"level": self.level, "basis": self.basis, "rating": self.rating}

    @staticmethod
    def from_json(data: Any) -> Strength | None:
        """A seat's stored judgement (None: none or unreadable)."""
        if not isinstance(data, dict) or not isinstance(data.get("level"), str):
            return None
        basis = data.get("basis")
        if basis not in ("bot", "rating", "newcomer"):
            return None
        rating = data.get("rating")
        return Strength(data["level"], basis, int(rating) if isinstance(rating, int) else None)


@functools.cache
def _ladder(pool: str) -> tuple[tuple[int, str], ...]:
    """The pool's ladder levels with their shown anchor ratings, weakest first."""
    anchors = anchored_levels(pool)
    return tuple(sorted((anchors[level], level) for level in LADDER_LEVELS if level in anchors))


def newcomer_level(pool: str) -> str:
    """The level a newcomer to `pool` is judged to play like: the weaker of the two ladder
    levels whose anchors bracket a new account's rating (the weakest level where every anchor
    is above it, the strongest where every one is below)."""
    ladder = _ladder(pool)
    below = [level for rating, level in ladder if rating <= SHOWN_BASE]
    return below[-1] if below else ladder[0][1]


def newcomer(pool: str) -> Strength:
    return Strength(newcomer_level(pool), "newcomer")


def rated_level(pool: str, shown_rating: int) -> str:
    """The ladder level whose anchor in `pool` is nearest `shown_rating` (ties: the weaker)."""
    return min(_ladder(pool), key=lambda anchor: (abs(anchor[0] - shown_rating), anchor[0]))[1]


def person_strength(pool: str, shown_rating: int | None, rated_games: int) -> Strength:
    """A person's judged strength in `pool`: from their shown rating once they have a rated game
    there, else a newcomer's."""
    if shown_rating is None or rated_games <= 0:
        return newcomer(pool)
    return Strength(rated_level(pool, shown_rating), "rating", shown_rating)


def seat_strengths(pool: str, seats: list[dict[str, Any]]) -> list[Strength]:
    """Each seat's judged strength: a bot its level, a person the judgement stored on the seat
    (`"strength"`, put there by the server when the seat was taken), else a newcomer's."""
    found: list[Strength] = []
    for seat in seats:
        if seat.get("kind") == "bot":
            found.append(Strength(str(seat.get("level")), "bot"))
            continue
        found.append(Strength.from_json(seat.get("strength")) or newcomer(pool))
    return found


def record_levels(
    record: Mapping[str, Any], ratings: Mapping[int, int] | None = None
) -> tuple[str | None, ...] | None:
    """The levels a record's seats are judged at, as the live table judged them: a bot seat its
    level (the record's `bots`), a person the level of their shown rating in `ratings` (by seat)
    where given, else a newcomer's. A record that does not say who is a bot (no `bots`) leaves
    every seat without a rating to the expert's play (None), as it always did; None when no
    seat is judged at all. A bad record raises the record's own errors (`rules_of`), a rating
    of a seat it does not have `ValueError`."""
    from dicepoker.record import rules_of

    rules, players = rules_of(record)
    missing = sorted(seat + 1 for seat in (ratings or {}) if not 0 <= seat < len(players))
    if missing:
        raise ValueError(f"the record has no seat {missing[0]} (it has {len(players)})")
    pool = pool_of(rules)
    ratings = ratings or {}
    bots = record.get("bots")
    known = isinstance(bots, list) and len(bots) == len(players)
    levels: list[str | None] = []
    for seat in range(len(players)):
        bot = bots[seat] if known and isinstance(bots, list) else None
        if isinstance(bot, str):
            levels.append(bot)
        elif seat in ratings:
            levels.append(person_strength(pool, ratings[seat], 1).level)
        else:
            levels.append(newcomer_level(pool) if known else None)
    return tuple(levels) if any(level is not None for level in levels) else None


def levels_of(strengths: list[Strength]) -> tuple[str, ...]:
    """The levels the win model takes (`winprob.Levels`)."""
    return tuple(strength.level for strength in strengths)


__all__ = [
    "LADDER_LEVELS",
    "Basis",
    "Strength",
    "levels_of",
    "newcomer",
    "newcomer_level",
    "person_strength",
    "rated_level",
    "record_levels",
    "seat_strengths",
]
