"""The puzzles' REST bodies (docs/api.md, "Puzzles"): a position of a real game where a person
lost a lot, what may be done there, and the advisor's verdict on an answer.

A puzzle is sent without any value of its options: those come only with the answer to a guess,
computed by the advisor when it is asked (never a stored answer).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from dicepoker.protocol.base import Absent, Strict, Wire, absent
from dicepoker.protocol.view import GameView

#: The longest action a guess may name ("keep 0 1 2 3", "score three_of_a_kind", ...).
MAX_ACTION = 64

Verdict = Literal["best", "good", "mistake"]


class Puzzle(Wire):
    """`GET /api/puzzles/next` and `GET /api/puzzles/{id}`: a position to solve."""

    id: str
    url: str = Field(description="the puzzle's page (/puzzles/{id})")
    preset: str = Field(description="the variant whose puzzles it is among")
    pool: str = Field(description="its rating pool (the variant and its sheet's size: school-3)")
    variant: str
    options: dict[str, JsonValue] = Field(description="the rules' options of the game")
    seat: int = Field(description="the seat to move: the one the puzzle asks about")
    turn: int = Field(description="the game's turn (1-based, every player's turns counted)")
    roll: int = Field(description="the rolls already made in this turn")
    state: GameView = Field(description="the position, as the table draws it")
    actions: list[str] = Field(
        description="every legal option here, in notation (keeps, then cell moves), unvalued"
    )


class PuzzleGuess(Strict):
    """`POST /api/puzzles/{id}`: the option chosen, in notation (`keep 0 1`, `score chance`)."""

    action: str = Field(min_length=1, max_length=MAX_ACTION)


class PuzzleOption(Wire):
    """An option of the position with the mover's expected final score after it (`value`); the
    advisor's own measure where it is not that (`worth`); the mover's chance of finishing first
    after it (`win`, 0 to 1) where it can be judged; how far it falls below the best (`loss`)."""

    action: str
    value: float
    worth: float | Absent = absent("what the expert ranks by, where it is not `value`")
    win: float | Absent = absent("the mover's chance of finishing first after it, 0 to 1")
    loss: float = Field(
        description="how far it falls below the best in the answer's measure: the chance of"
        " winning in a position with rivals where every option has `win`, else expected points"
        " (0: a best option)"
    )


class PuzzleAnswer(Wire):
    """`POST /api/puzzles/{id}`: every option's value, the best, and the verdict on the guess,
    all computed by the advisor now."""

    id: str
    action: str = Field(description="the option guessed, in notation")
    method: Literal["solver", "expectimax"]
    verdict: Verdict = Field(
        description="best (nothing lost), good (lost at most `good_within`), or mistake"
    )
    loss: float = Field(
        description="what the guess loses against the best, in the answer's measure (the"
        " chance of winning with rivals, else expected points)"
    )
    good_within: float = Field(
        description="the most a guess may lose and still be good, in the same measure"
    )
    best: PuzzleOption
    chosen: PuzzleOption
    played: PuzzleOption | None = Field(
        description="what the player of the real game chose here (null: not among the options)"
    )
    options: list[PuzzleOption] = Field(description="every legal option, the best first")
