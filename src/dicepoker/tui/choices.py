"""What the person at this terminal is choosing during a turn, kept between the session's views.

The dice marked to keep, the cell under the cursor, a zero waiting for its second Enter and whose
sheet is shown: none of it is in the view (the session learns of it only with the action), so the
game screen keeps it here and `follow` puts it right when the view moves on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dicepoker.tui.sheet import Selection

Rows = Mapping[str, Sequence[Mapping[str, Any]]]


def best_row(rows: Rows) -> str:
    """The row whose main move gains most now (the first such row in sheet order): where the
    cursor starts, so that Enter never throws points away by surprise."""
    best, best_gain = next(iter(rows)), float("-inf")
    for row, options in rows.items():
        gain = float(options[0].get("gain") or 0)
        if gain > best_gain:
            best, best_gain = row, gain
    return best


@dataclass
class Choices:
    """The choices of a turn: `held` (dice positions), `selection` (row and move), `viewing`
    (a seat chosen with Tab; None: the automatic one) and `armed` (a zero's action, confirmed by
    a second Enter)."""

    held: set[int] = field(default_factory=set)
    selection: Selection | None = None
    viewing: int | None = None
    armed: str | None = None
    _turn: tuple[Any, ...] | None = None
    _rolls: int | None = None

    def follow(self, view: Mapping[str, Any], rows: Rows) -> None:
        """Start afresh on a new turn; forget the cursor after a roll; keep the cursor on a row
        that may be filled (`rows`: the legal cell moves by row)."""
        turn = view.get("turn") or {}
        key = (view.get("turn_number"), turn.get("seat"), (view.get("tiebreak") or {}).get("game"))
        if key != self._turn:
            self._turn = key
            self.held.clear()
            self.selection = None
            self.viewing = None
            self._rolls = None
            self.armed = None
        rolls = turn.get("rolls")
        if rolls != self._rolls:
            self._rolls = rolls
            self.selection = None
            self.armed = None
            if not rolls:
                self.held.clear()
        if rows and (self.selection is None or self.selection.row not in rows):
            self.selection = Selection(best_row(rows))
        elif not rows:
            self.selection = None

    def move_cursor(self, rows: Rows, delta: int) -> None:
        """The next (or previous) row that may be filled."""
        order = list(rows)
        self.armed = None
        index = (
            order.index(self.selection.row)
            if self.selection and self.selection.row in order
            else -delta
        )
        self.selection = Selection(order[(index + delta) % len(order)])

    def switch_move(self, rows: Rows, delta: int) -> None:
        """The next (or previous) move of the chosen row (score, zero, strike)."""
        if self.selection is None or self.selection.row not in rows:
            return
        self.armed = None
        count = len(rows[self.selection.row])
        self.selection = Selection(self.selection.row, (self.selection.choice + delta) % count)
