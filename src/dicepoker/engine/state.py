"""Immutable, hashable game state: sheets, cells, the dice in play and whose turn it is.

Everything here is a frozen value, so bots and the solver can hash and cache positions and a
refused action can never have changed anything. `Sheet` and `GameState` are named tuples rather
than frozen dataclasses because they are rebuilt on every action and a named tuple is built about
ten times faster.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple

from dicepoker.rules.model import Rules


class Mark(StrEnum):
    """What fills a cell."""

    SCORE = "score"  # points (a combination, a category)
    CLOSED = "closed"  # a closed School cell (a cross on the sheet)
    STRIKE = "strike"  # a struck combination cell (a stroke)
    ZERO = "zero"  # a School row that could not be closed (-200)


@dataclass(frozen=True, slots=True)
class Cell:
    """A filled cell. `points` counts toward the total (0 for a cross, a stroke or a zero).

    `note` is the reserve total written in a School cell whose closing changed the reserve;
    `used_reserve` marks a School cell closed with fewer dice than needed; `joker` a Yahtzee placed
    by the Joker rule.
    """

    mark: Mark
    points: int = 0
    doubled: bool = False
    used_reserve: bool = False
    note: int | None = None
    joker: bool = False

    def __reduce__(self) -> tuple[object, tuple[str, int, bool, bool, int | None, bool]]:
        # A state travels to the server's workers with each call: as plain
        # values, a cell pickles in a third of the time and unpickles in a quarter of it
        # (a frozen dataclass with slots otherwise goes through `__getstate__`, its mark
        # through the enum's reduction, and `__init__` on the way back).
        fields = (self.mark._value_, self.points, self.doubled, self.used_reserve, self.note)
        return _cell, (*fields, self.joker)


_MARKS = {mark.value: mark for mark in Mark}


@lru_cache(maxsize=4096)
def _cell(
    mark: str, points: int, doubled: bool, used_reserve: bool, note: int | None, joker: bool
) -> Cell:
    """A cell unpickled (`Cell.__reduce__`); equal cells are one object, as a game's closed
    and struck cells mostly are."""
    return Cell(_MARKS[mark], points, doubled, used_reserve, note, joker)


@dataclass(frozen=True, slots=True)
class Bonus:
    """A star bonus earned first: kind `school_row`, `combination_row` or `column`, and its key."""

    kind: str
    key: str | int
    value: int

    def as_list(self) -> list[str | int]:
        return [self.kind, self.key, self.value]


class Sheet(NamedTuple):
    """One player's sheet. `cells` is row-major (rows x columns); None is an empty cell.

    `note_at` is the index of the cell holding the newest reserve note (all older notes are struck).
    `row_fill` counts the filled cells of each row, which is also the next column to fill (rows
    fill from the left); it is kept beside `cells` because every legal-move query reads it.
    """

    cells: tuple[Cell | None, ...]
    row_fill: tuple[int, ...]
    reserve: int = 0
    note_at: int | None = None
    stars: tuple[Bonus, ...] = ()
    yahtzee_bonus: int = 0
    jokers: int = 0
    filled: int = 0

    @classmethod
    def empty(cls, rules: Rules) -> Sheet:
        return cls((None,) * rules.cells, (0,) * len(rules.rows))

    def cell(self, rules: Rules, row: int, column: int) -> Cell | None:
        return self.cells[row * rules.columns + column]

    def row_cells(self, rules: Rules, row: int) -> tuple[Cell | None, ...]:
        start = row * rules.columns
        return self.cells[start : start + rules.columns]

    def column_cells(self, rules: Rules, column: int) -> tuple[Cell | None, ...]:
        return self.cells[column :: rules.columns]

    def next_column(self, rules: Rules, row: int) -> int | None:
        """The leftmost empty column of `row`, or None when the row is full."""
        fill = self.row_fill[row]
        return fill if fill < rules.columns else None

    def open_rows(self, rules: Rules) -> list[int]:
        """Indices of the rows that still have an empty cell, in sheet order."""
        columns = rules.columns
        return [index for index, fill in enumerate(self.row_fill) if fill < columns]

    def is_full(self, rules: Rules) -> bool:
        return self.filled == rules.cells


class GameState(NamedTuple):
    """A whole game between turns or mid-turn.

    `dice` is empty before the turn's first roll; `rolls` counts this turn's rolls; `thrown_all`
    says the last roll threw every die (so a School combination doubles). `turn` counts the moves
    made so far (the record's turn index). `stage` is 0 for the main game and k for the k-th
    tie-break game, played by `contenders` on fresh sheets; `main_sheets` keeps the main game's
    sheets once a tie-break starts. `forfeited` lists the seats that lost on the clock, in order.
    """

    rules: Rules
    players: tuple[str, ...]
    sheets: tuple[Sheet, ...]
    seat: int = 0
    turn: int = 0
    dice: tuple[int, ...] = ()
    rolls: int = 0
    thrown_all: bool = False
    stage: int = 0
    contenders: tuple[int, ...] = ()
    main_sheets: tuple[Sheet, ...] | None = None
    forfeited: tuple[int, ...] = ()
    winner: int | None = None
    finished: bool = False

    @property
    def sheet(self) -> Sheet:
        """The sheet of the player to move."""
        return self.sheets[self.seat]

    @property
    def rolls_left(self) -> int:
        return self.rules.rolls_per_turn - self.rolls

    @property
    def final_sheets(self) -> tuple[Sheet, ...]:
        """The main game's sheets (the ones whose totals rank the players)."""
        return self.main_sheets if self.main_sheets is not None else self.sheets
