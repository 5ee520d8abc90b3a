"""Reading a result: totals and what they are made of, and the players' ranking."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dicepoker.engine.semantics import (
    upper_bonus_gain,
    upper_bonus_points,
    upper_rows,
    zero_penalty,
)
from dicepoker.engine.state import Bonus, Cell, GameState, Mark, Sheet
from dicepoker.rules.model import Rules


@dataclass(frozen=True, slots=True)
class Breakdown:
    """A total and what it is made of: `total = cells + stars + upper_bonus + yahtzee_bonus +
    reserve - zero_penalty`."""

    cells: int
    stars: int
    upper_bonus: int
    yahtzee_bonus: int
    reserve: int
    zeros: int
    zero_penalty: int
    strikes: int

    @property
    def bonuses(self) -> int:
        return self.stars + self.upper_bonus + self.yahtzee_bonus

    @property
    def total(self) -> int:
        return self.cells + self.bonuses + self.reserve - self.zero_penalty


def upper_total(rules: Rules, sheet: Sheet) -> int:
    """Points in the upper-section rows (what the upper bonus counts)."""
    return sum(
        cell.points
        for index in upper_rows(rules)
        for cell in sheet.row_cells(rules, index)
        if cell is not None
    )


def sheet_breakdown(rules: Rules, sheet: Sheet) -> Breakdown:
    cells = zeros = strikes = 0
    for cell in sheet.cells:
        if cell is None:
            continue
        cells += cell.points
        if cell.mark is Mark.ZERO:
            zeros += 1
        elif cell.mark is Mark.STRIKE:
            strikes += 1
    upper = upper_bonus_points(rules, upper_total(rules, sheet)) if rules.upper_bonus else 0
    return Breakdown(
        cells=cells,
        stars=sum(star.value for star in sheet.stars),
        upper_bonus=upper,
        yahtzee_bonus=sheet.yahtzee_bonus,
        reserve=sheet.reserve,
        zeros=zeros,
        zero_penalty=zero_penalty(rules) * zeros,
        strikes=strikes,
    )


def total_after(
    rules: Rules,
    before: Breakdown,
    sheet: Sheet,
    cell: Cell,
    index: int,
    earned: tuple[Bonus, ...],
    yahtzee_bonus: int,
    reserve: int,
) -> int:
    """`sheet_breakdown(rules, after).total` from `before` (that of `sheet`), where `after` is
    `sheet` with one more cell, `cell`, in row `index`, the stars `earned`, and that Yahtzee bonus
    and reserve (a preview's many candidate moves: no sheet is made for them). The same sum as
    `Breakdown.total`: cells, bonuses and reserve less the zeros' penalty."""
    zeros = before.zeros + (cell.mark is Mark.ZERO)
    upper = before.upper_bonus
    if rules.upper_bonus and index in upper_rows(rules):
        upper += upper_bonus_gain(rules, upper_total(rules, sheet), cell.points)
    stars = before.stars + sum(star.value for star in earned) if earned else before.stars
    bonuses = stars + upper + yahtzee_bonus
    return before.cells + cell.points + bonuses + reserve - zero_penalty(rules) * zeros


def breakdown(state: GameState, seat: int) -> Breakdown:
    """Seat's total and its parts in the main game (a tie-break does not change totals)."""
    return sheet_breakdown(state.rules, state.final_sheets[seat])


def totals(state: GameState) -> tuple[int, ...]:
    return tuple(breakdown(state, seat).total for seat in range(len(state.players)))


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    name: str
    total: int
    place: int
    forfeited: bool


def ranking(state: GameState, scores: Sequence[int] | None = None) -> list[Standing]:
    """Players by place. Equal totals share a place, except where a tie-break or forfeit decided.
    `scores`: the totals when the caller has them already (`totals(state)`)."""
    if scores is None:
        scores = totals(state)

    def key(seat: int) -> tuple[bool, bool, int]:
        return (seat not in state.forfeited, seat == state.winner, scores[seat])

    order = sorted(range(len(state.players)), key=key, reverse=True)
    standings: list[Standing] = []
    for position, seat in enumerate(order):
        place = position + 1
        if standings and key(order[position - 1]) == key(seat):
            place = standings[-1].place
        standings.append(
            Standing(seat, state.players[seat], scores[seat], place, seat in state.forfeited)
        )
    return standings


def winner(state: GameState) -> int | None:
    """The seat that won a finished game, or None (not finished, or first place shared)."""
    if not state.finished:
        return None
    if state.winner is not None:
        return state.winner
    first = [standing.seat for standing in ranking(state) if standing.place == 1]
    return first[0] if len(first) == 1 else None
