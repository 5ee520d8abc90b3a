"""Actions and their text notation.

`roll` throws all the dice, `keep 0 1` keeps dice 0 and 1 and throws the rest (the record's word;
`hold 0 1`, the word of earlier versions, is read as the same action), `score ROW`, `strike ROW`
and `zero ROW` fill a cell, `timeout` records a lost turn clock and `absent` a player counted
gone (`Forfeit`). `parse_action` and `str(action)` round-trip exactly, like python-chess's
`Move.from_uci()` and `uci()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dicepoker.engine.errors import NotationError

Verb = Literal["score", "strike", "zero"]
VERBS: tuple[Verb, ...] = ("score", "strike", "zero")
#: The word for keeping dice, then the older word still read.
KEEP_WORDS = ("keep", "hold")


@dataclass(frozen=True, slots=True)
class Roll:
    """Throw every die not in `keep` (positions, sorted, 0-based). `Roll()` throws them all."""

    keep: tuple[int, ...] = ()

    def __str__(self) -> str:
        if not self.keep:
            return "roll"
        return "keep " + " ".join(str(p) for p in self.keep)


@dataclass(frozen=True, slots=True)
class Move:
    """End the turn by filling the leftmost empty cell of `row`: score it, strike it or zero it."""

    verb: Verb
    row: str

    def __str__(self) -> str:
        return f"{self.verb} {self.row}"


#: Why a player forfeits: "timeout", their turn clock ran out in a variant whose rules make that
#: lose the game; "absent", they were counted gone from a game the others play on (a rated
#: game's turn clock says when: `dicepoker.master.clock`).
ForfeitReason = Literal["timeout", "absent"]
FORFEIT_REASONS: tuple[ForfeitReason, ...] = ("timeout", "absent")


@dataclass(frozen=True, slots=True)
class Forfeit:
    """The player to move loses the game: ranked last, and the others play on (`reason`)."""

    reason: ForfeitReason = "timeout"

    def __str__(self) -> str:
        return self.reason


Action = Roll | Move | Forfeit

ROLL = Roll()
FORFEIT = Forfeit()
ABSENT = Forfeit("absent")


def keep(*positions: int) -> Roll:
    """`keep(0, 1)`: keep dice 0 and 1 and throw the others (positions in any order)."""
    return make_roll(positions)


def make_roll(positions: tuple[int, ...] | list[int]) -> Roll:
    """A `Roll` keeping `positions`; refuses duplicates and negative positions."""
    keep = tuple(sorted(positions))
    if len(set(keep)) != len(keep):
        raise NotationError(f"a die is held twice in {list(positions)}")
    if keep and keep[0] < 0:
        raise NotationError(f"die positions start at 0, not {keep[0]}")
    return Roll(keep)


def parse_action(text: str) -> Action:
    """Read an action written in our notation (`roll`, `keep 0 1`, `score pair`, ...); `hold` is
    read as `keep` (the word of earlier versions)."""
    if not isinstance(text, str):
        raise NotationError(f"an action is text, not {type(text).__name__}")
    words = text.split()
    if not words:
        raise NotationError("empty action")
    head, rest = words[0], words[1:]
    if head == "roll" and not rest:
        return ROLL
    if head == "timeout" and not rest:
        return FORFEIT
    if head == "absent" and not rest:
        return ABSENT
    if head in KEEP_WORDS and rest:
        if not all(word.isdigit() and word.isascii() for word in rest):
            raise NotationError(f"'{head}' takes die positions (0, 1, ...), not {' '.join(rest)!r}")
        return make_roll([int(word) for word in rest])
    if head in VERBS and len(rest) == 1:
        return Move(head, rest[0])
    raise NotationError(
        f"not an action: {text!r} "
        "(expected roll, keep POSITIONS, score ROW, strike ROW or zero ROW)"
    )
