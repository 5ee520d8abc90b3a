"""Where the table's parts go for a window of a given width (pure layout maths, no widgets).

The sheet of the player shown comes first, as roomy as fits (`sheet.choose_layout`). Beside it,
the side panel (players, dice, hints) needs at least `SIDE_MIN` cells; when the sheet leaves less,
the window is *narrow*: the side panel goes below the sheet, which is squeezed to the full width.
Beside it, as many of the other players' small sheets as fit with the side panel at `SIDE_WIDE`
stand between the sheet and the side panel, the next to move first (Tab shows any sheet full
size; the side panel lists every player's total).
"""

from __future__ import annotations

from dataclasses import dataclass

from dicepoker.tui.sheet import SheetLayout, choose_layout, sheet_lines
from dicepoker.tui.table_state import TableState

#: Narrowest side panel (players, dice, hints) beside the sheet; below it when narrower.
SIDE_MIN = 20
#: Width kept for the side panel when there is room to spare (for the other sheets, the words).
SIDE_WIDE = 34
#: Gap left of each small sheet.
MINI_GAP = 2
#: Cells of the sheet's scrollbar, when the window is too short for the whole sheet.
SCROLLBAR = 2
#: Lines under the table's body: the status line and the keys.
BOTTOM_LINES = 2
#: A window shorter than this is *short*: the side panel's parts shrink to their essentials
#: (the dice commitment on one line), so the dice and the rejoin command stay in sight.
SHORT_HEIGHT = 30


@dataclass(frozen=True, slots=True)
class TableLayout:
    """The table's plan: the sheet's layout, whether the side panel is below it (`narrow`),
    the cells the sheet's lines of words may use (`room`), the drawn sheet's width, the width
    the side panel's lines are cut to, and the seats whose small sheets stand beside it."""

    sheet: SheetLayout
    narrow: bool
    room: int
    sheet_width: int
    side_width: int
    beside: tuple[int, ...] = ()
    short: bool = False

    @property
    def show_others(self) -> bool:
        """Whether other players' sheets stand beside this one."""
        return bool(self.beside)

    @property
    def dice_slot(self) -> int:
        """Cells per die in the side panel (`[5]` centred in 4, or tight in 3)."""
        return 4 if self.side_width >= 24 else 3


def drawn_width(table: TableState, layout: SheetLayout, room: int) -> int:
    """How wide the sheet of the seat shown is drawn: its grid, and its lines of words (title,
    subtotals, summary), which may use up to `room` cells."""
    view = table.view
    assert view is not None
    seat = table.shown
    lines = sheet_lines(
        view,
        seat,
        table.words,
        layout,
        current=seat == table.mover,
        mine=table.is_mine(seat),
        room=room,
    )
    return max(line.cell_length for line in lines)


def sheet_height(table: TableState, layout: SheetLayout, room: int) -> int:
    """How many lines the sheet of the seat shown takes, its summary included."""
    view = table.view
    assert view is not None
    seat = table.shown
    return len(sheet_lines(view, seat, table.words, layout, current=seat == table.mover, room=room))


def others_order(table: TableState) -> list[int]:
    """The other seats, from the one after the seat shown (the next to move) round the table."""
    assert table.view is not None
    count = len(table.view["players"])
    return [(table.shown + step) % count for step in range(1, count)]


def plan_table(table: TableState, width: int, height: int | None = None) -> TableLayout:
    """The layout of `table` (which has a view) in a window `width` cells wide (and `height`
    lines high, when known: a sheet taller than that scrolls, and its scrollbar takes cells)."""
    view = table.view
    assert view is not None
    words = table.words
    width = max(width, 20)
    short = height is not None and height < SHORT_HEIGHT
    beside_room = width - SIDE_MIN - 2
    layout = choose_layout(view, words, beside_room)
    narrow = layout.width > beside_room
    if narrow:
        layout = choose_layout(view, words, width - 2, squeeze=True)
        room = width - 2
        sheet_width = drawn_width(table, layout, room)
        return TableLayout(layout, True, room, sheet_width, width - 1, short=short)
    others = others_order(table)
    step = layout.mini_width + MINI_GAP
    fit = max(0, min(len(others), (width - layout.width - SIDE_WIDE) // step))
    beside = others[:fit]
    minis = fit * step
    room = width - SIDE_WIDE - minis
    room = max(layout.width, min(room, beside_room))
    sheet_width = drawn_width(table, layout, room)
    used = sheet_width + (minis + MINI_GAP if beside else 0)
    if height is not None and sheet_height(table, layout, room) > height - BOTTOM_LINES:
        used += SCROLLBAR
    side_width = max(10, width - used - 2 - 1)
    return TableLayout(layout, False, room, sheet_width, side_width, tuple(beside), short)
